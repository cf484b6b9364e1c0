// Secrets: every comparison of a secret goes through safeEqual (constant time for equal lengths),
// and a wrong secret of the wrong length and of the right length are refused alike, for bearer
// keys, terminal public keys, the control token, page CSRF tokens and webhook signatures. Then the
// log: a real server (the built CLI, --log-format json) gets requests carrying API keys, card
// numbers, private-key encryption, encrypted data and the control token, and none of them
// appears in a log line (the start banner prints the seeded test credentials by design). Last, card
// numbers at rest: tokens, malformed cards stored by an Idempotency-Key, payments and S2S requests
// against a file database leave no full number or CVV in the file, its WAL, an export, the request
// journal or the log.
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import * as signature from '../../src/signatures/signing.js';
import { buildEncryptedData } from '../../src/crypto/s2s-cipher.js';
import { startCliSandbox } from '../helpers/cli-sandbox.js';
import { startFakeMerchant } from '../helpers/fake-merchant.js';
import { CREDS, createTestSandbox, s2sBody, type TestSandbox } from '../helpers/test-sandbox.js';
import { waitFor } from '../helpers/wait-for.js';
import { csrfOf } from '../helpers/seed-objects.js';

vi.mock('../../src/signatures/signing.js', async (importOriginal) => {
  const real = await importOriginal<typeof import('../../src/signatures/signing.js')>();
  return { ...real, safeEqual: vi.fn(real.safeEqual) };
});
const safeEqual = vi.mocked(signature.safeEqual);

/** Whether safeEqual compared `secret` with what the request sent, in either order. */
const compared = (secret: string, sent: string) =>
  safeEqual.mock.calls.some(([a, b]) => (a === secret && b === sent) || (a === sent && b === secret));

describe('safeEqual', () => {
  it.each([
    ['same', 'whsec_abc', 'whsec_abc', true],
    ['wrong length', 'whsec_abc', 'whsec_ab', false],
    ['right length, last character wrong', 'whsec_abc', 'whsec_abd', false],
    ['right length, first character wrong', 'whsec_abc', 'Xhsec_abc', false],
    ['empty against a secret', '', 'whsec_abc', false],
    ['same characters, different byte length', 'é', 'ee', false],
  ])('%s', (_name, a, b, expected) => {
    expect(signature.safeEqual(a, b)).toBe(expected);
  });

  it('verifySignature accepts the right HMAC and refuses a wrong one of either length', () => {
    const body = 'transID=1&status=Test+Approved';
    const right = `sha256=${signature.hmacHex('whsec_test_sandbox', body)}`;
    expect(signature.verifySignature(right, 'whsec_test_sandbox', body)).toBe(true);
    expect(signature.verifySignature(`sha256=${'0'.repeat(64)}`, 'whsec_test_sandbox', body)).toBe(false);
    expect(signature.verifySignature(right.slice(0, -1), 'whsec_test_sandbox', body)).toBe(false);
    expect(signature.verifySignature(`sha256=${'0'.repeat(64)},${right}`, 'whsec_test_sandbox', body)).toBe(true);
    expect(signature.verifySignature(undefined, 'whsec_test_sandbox', body)).toBe(false);
  });
});

describe('every secret comparison uses safeEqual and refuses wrong secrets of any length', () => {
  let sb: TestSandbox;
  afterEach(() => {
    sb.close();
    safeEqual.mockClear();
  });

  it('bearer API keys', async () => {
    sb = createTestSandbox();
    const sameLength = `${CREDS.apiKey.slice(0, -1)}Y`;
    for (const key of [sameLength, 'sk_test_x', `${CREDS.apiKey}0`]) {
      const res = await sb.request('GET', '/v1/payments', undefined, { authorization: `Bearer ${key}` });
      expect(res.status, key).toBe(401);
      expect(res.json.error.code).toBe('invalid_credentials');
      expect(res.text).not.toContain(key);
    }
    expect(compared(CREDS.apiKey, sameLength)).toBe(true);
    expect((await sb.request('GET', '/v1/payments', undefined, { authorization: `Bearer ${CREDS.apiKey}` })).status).toBe(200);
  });

  it('terminal public keys (S2S and refund-request)', async () => {
    sb = createTestSandbox();
    const sameLength = 'pk_test_1009';
    for (const key of [sameLength, 'pk_x']) {
      const res = await sb.request('POST', '/api/s2s', s2sBody({ public_key: key }));
      expect(res.status).toBe(401);
      const refund = await sb.request('POST', '/api/transactions/refund-request', { transID: 'T1', refundAmount: '1.00', public_key: key });
      expect(refund.status).toBe(401);
    }
    expect(compared(CREDS.publicKey, sameLength)).toBe(true);
  });

  it('the control token', async () => {
    sb = createTestSandbox({ controlToken: 'ctl_token_42' });
    for (const token of ['ctl_token_43', 'ctl', 'ctl_token_420']) {
      expect((await sb.request('GET', '/_sandbox/health', undefined, { authorization: `Bearer ${token}` })).status).toBe(401);
    }
    expect(compared('ctl_token_42', 'ctl_token_43')).toBe(true);
    expect((await sb.request('GET', '/_sandbox/health', undefined, { authorization: 'Bearer ctl_token_42' })).status).toBe(200);
  });

  it('page CSRF tokens (authentication page and checkout page)', async () => {
    sb = createTestSandbox();
    const created = await sb.request('POST', '/api/s2s', s2sBody());
    const path = new URL(created.json.authurl).pathname;
    const csrf = await csrfOf(sb, path);
    const wrong = csrf.slice(0, -1) + (csrf.endsWith('A') ? 'B' : 'A');
    const res = await sb.request('POST', path, `csrf=${wrong}&otp=123456`, { 'content-type': 'application/x-www-form-urlencoded' });
    expect(res.status).toBe(403);
    expect(compared(csrf, wrong)).toBe(true);

    const session = await sb.request(
      'POST',
      '/v1/checkout/sessions',
      { amount: 100, currency: 'EUR', methods: ['card'], return_url: 'https://shop.example/r' },
      { authorization: `Bearer ${CREDS.apiKey}` },
    );
    const payPath = new URL(session.json.url).pathname;
    const payCsrf = await csrfOf(sb, payPath);
    const payWrong = payCsrf.slice(0, -1) + (payCsrf.endsWith('A') ? 'B' : 'A');
    const pay = await sb.request('POST', `${payPath}/card`, `csrf=${payWrong}&number=4242424242424242&expiry=12/30&cvc=123&name=J`, {
      'content-type': 'application/x-www-form-urlencoded',
    });
    expect(pay.status).toBe(403);
    expect(compared(payCsrf, payWrong)).toBe(true);
  });
});

describe('secrets never reach the log', () => {
  it('a real server with --log-format json logs none of the keys, cards or encrypted data it was sent', async () => {
    const controlToken = 'ctl_never_logged_5150';
    const receiver = await startFakeMerchant();
    const sandbox = await startCliSandbox(['--db', ':memory:', '--log-format', 'json', '--retry', 'none', '--control-token', controlToken]);
    try {
      const { url } = sandbox;
      const bearer = { authorization: `Bearer ${CREDS.apiKey}` };
      const post = (path: string, body: string, headers: Record<string, string>) => fetch(url + path, { method: 'POST', headers, body });
      const json = { 'content-type': 'application/json' };

      const cards = ['4000000000003220', '4000008400001629', '4242424242424242', '4000000000000069', '4000000000003221'];
      // Secrets the banner never prints: these must appear nowhere in the output at all.
      const wrongKeys = ['sk_test_wrong_key_8841', 'sk_live_real_key_9931', 'pk_test_wrong_7719'];
      const encryptedData = buildEncryptedData(
        new URLSearchParams({
          ...(s2sBody({ ccno: '4000000000000069', webhook_url: `${receiver.url}/enc` }) as Record<string, string>),
          terNO: '1001',
          encryption_method: 'aes256',
        }).toString(),
        { privateKey: CREDS.privateKey, publicKey: CREDS.publicKey },
      );

      expect((await post('/api/s2s', JSON.stringify(s2sBody({ ccno: '4000000000003220', ccvv: '987' })), json)).status).toBe(200);
      expect(
        (await post('/api/s2s', JSON.stringify(s2sBody({ ccno: '4242424242424242', webhook_url: `${receiver.url}/hook` })), json)).status,
      ).toBe(200);
      expect((await post('/api/s2s', JSON.stringify(s2sBody({ ccno: '4000000000003221' })), json)).status).toBe(400);
      expect((await post('/api/s2s', JSON.stringify(s2sBody({ public_key: 'pk_test_wrong_7719' })), json)).status).toBe(401);
      const enc = await post('/api/s2s/encrypt', `encrypted_data=${encodeURIComponent(encryptedData)}`, {
        'content-type': 'application/x-www-form-urlencoded',
      });
      expect(enc.status, await enc.clone().text()).toBe(200);
      expect(
        (
          await post(
            '/v1/payments',
            JSON.stringify({
              amount: 100,
              currency: 'EUR',
              card: { number: '4000008400001629', exp_month: 12, exp_year: 2030, cvc: '456' },
              return_url: 'https://shop.example/r',
            }),
            { ...json, ...bearer },
          )
        ).status,
      ).toBe(200);
      expect(
        (
          await post('/v1/tokens', JSON.stringify({ card: { number: '4242424242424242', exp_month: 12, exp_year: 2030, cvc: '456' } }), {
            ...json,
            ...bearer,
          })
        ).status,
      ).toBe(200);
      for (const key of wrongKeys.slice(0, 2))
        expect((await fetch(`${url}/v1/payments`, { headers: { authorization: `Bearer ${key}` } })).status).toBe(401);
      expect((await fetch(`${url}/v1/payments?api_key=${CREDS.apiKey}`, { headers: bearer })).status).toBe(400);
      expect((await fetch(`${url}/_sandbox/health`, { headers: { authorization: `Bearer ${controlToken}` } })).status).toBe(200);
      expect((await fetch(`${url}/_sandbox/health`, { headers: { authorization: `Bearer ${controlToken}x` } })).status).toBe(401);
      // The webhooks are sent (and logged) too.
      await waitFor(
        () => receiver.received.length >= 2 && (sandbox.stdout.match(/"type":"webhook"/g) ?? []).length >= 2,
        'two webhook log lines',
        10_000,
      );
      await waitFor(() => (sandbox.stdout.match(/"type":"request"/g) ?? []).length >= 12, 'twelve request log lines', 10_000);

      const logLines = sandbox.stdout.split('\n').filter((line) => line.startsWith('{'));
      const log = logLines.join('\n');
      expect(logLines.length).toBeGreaterThanOrEqual(14);
      for (const line of logLines) expect(() => JSON.parse(line)).not.toThrow();
      // The banner lists the seeded credentials and two test cards on purpose; log lines list none.
      for (const secret of [
        CREDS.apiKey,
        CREDS.privateKey,
        CREDS.publicKey,
        CREDS.secret,
        CREDS.other.apiKey,
        '"987"',
        '"456"',
        ...cards,
      ]) {
        expect(log + sandbox.stderr, `a log line contains ${secret}`).not.toContain(secret);
      }
      for (const secret of [...wrongKeys, controlToken, encryptedData.slice(0, 40), encodeURIComponent(encryptedData).slice(0, 40)]) {
        expect(sandbox.stdout + sandbox.stderr, `the output contains ${secret}`).not.toContain(secret);
      }
    } finally {
      await sandbox.kill();
      await receiver.close();
    }
  });
});

describe('card numbers and CVVs are written nowhere', () => {
  it('a real server on a file database: the file, its WAL, an export and the log hold no full number or CVV', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'paysandbox-pan-'));
    const file = join(dir, 'sandbox.db');
    const sandbox = await startCliSandbox(['--db', file, '--log-format', 'json', '--retry', 'none']);
    try {
      const { url } = sandbox;
      const headers = { 'content-type': 'application/json', authorization: `Bearer ${CREDS.apiKey}` };
      const post = (path: string, body: unknown, extra: Record<string, string> = {}) =>
        fetch(url + path, { method: 'POST', headers: { ...headers, ...extra }, body: JSON.stringify(body) });
      // Numbers the start banner never prints (it shows two test cards by design), each with its own CVV.
      const cards = [
        { number: '4000000000009995', cvc: '7391' },
        { number: '5555555555554444', cvc: '8264' },
        { number: '4000008400001629', cvc: '6157' },
      ];
      const tokens: string[] = [];
      for (const c of cards) {
        const res = await post('/v1/tokens', { card: { ...c, exp_month: 12, exp_year: 2030 } });
        expect(res.status).toBe(200);
        tokens.push(((await res.json()) as { id: string }).id);
      }
      // Malformed cards, each answer stored by its Idempotency-Key.
      const [a, b, c] = cards as [(typeof cards)[0], (typeof cards)[0], (typeof cards)[0]];
      const malformed = [
        { card: `${a.number}|12|30|${a.cvc}` },
        { card: [b.number, b.cvc] },
        { card: { number: { pan: c.number }, exp_month: 12, exp_year: 2030, cvc: c.cvc } },
        { card: { number: a.number, exp_month: '12', exp_year: 2030, cvc: { value: a.cvc } } },
        { card: { number: Number(b.number), exp_month: 12, exp_year: 2030, cvc: Number(b.cvc) } },
      ];
      for (const [i, body] of malformed.entries()) {
        for (const path of ['/v1/tokens', '/v1/payments']) {
          const res = await post(path, path === '/v1/payments' ? { amount: 100, currency: 'EUR', ...body } : body, {
            'idempotency-key': `bad-card-${i}-${path}`,
          });
          expect(res.status, `${path} ${JSON.stringify(body)}`).toBe(400);
        }
      }
      // Payments by card and by token, and an S2S payment with ccno and ccvv.
      expect(
        (
          await post(
            '/v1/payments',
            { amount: 100, currency: 'EUR', card: { ...c, exp_month: 12, exp_year: 2030 }, return_url: 'https://shop.example/r' },
            { 'idempotency-key': 'card-pay' },
          )
        ).status,
      ).toBe(200);
      for (const token of tokens)
        expect((await post('/v1/payments', { amount: 100, currency: 'EUR', token, return_url: 'https://shop.example/r' })).status).toBe(
          200,
        );
      expect(
        (
          await fetch(`${url}/api/s2s`, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify(s2sBody({ ccno: b.number, ccvv: b.cvc })),
          })
        ).status,
      ).toBe(200);

      const exported = await (await fetch(`${url}/_sandbox/export`)).text();
      expect(exported).toContain(tokens[0]);
      await waitFor(
        () => (sandbox.stdout.match(/"type":"request"/g) ?? []).length >= 3 + malformed.length * 2 + 1 + tokens.length + 1 + 1,
        'a log line per request',
        10_000,
      );

      // The request journal keeps every one of these requests with its body and answer (masked).
      const journal = await (await fetch(`${url}/_sandbox/requests?limit=100`)).text();
      const journaled = JSON.parse(journal) as { data: Array<{ path: string; request: { body: string | null } }> };
      expect(journaled.data.filter((e) => e.path === '/v1/payments' || e.path === '/v1/tokens' || e.path === '/api/s2s').length).toBe(
        3 + malformed.length * 2 + 1 + tokens.length + 1,
      );
      expect(journal).toContain('555555******4444');
      expect(journal, 'the journal holds no API key').not.toContain(CREDS.apiKey);

      const places = {
        'the request journal': journal,
        'the database file': readFileSync(file).toString('latin1'),
        'the WAL': existsSync(`${file}-wal`) ? readFileSync(`${file}-wal`).toString('latin1') : '',
        'the export': exported,
        'the log': sandbox.stdout + sandbox.stderr,
      };
      expect(places['the WAL'].length, 'the WAL holds the writes of this run').toBeGreaterThan(0);
      for (const [place, text] of Object.entries(places)) {
        for (const card of cards) {
          expect(text.includes(card.number), `${place} holds ${card.number}`).toBe(false);
          // A CVV as a value: quoted, after a colon or "=", never just four digits inside a random id.
          expect(new RegExp(`["=:]${card.cvc}(?!\\d)|${card.cvc}\\\\?"`).test(text), `${place} holds the CVV ${card.cvc}`).toBe(false);
        }
      }
    } finally {
      await sandbox.kill();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
