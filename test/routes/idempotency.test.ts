// Idempotency-Key on every public POST: replay of the first answer, 409 for another request under
// the same key, exactly one payment from concurrent duplicates, per-merchant keys, the 24 h window.
import { createHash } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CREDS, createTestSandbox, s2sBody, type TestSandbox } from '../helpers/test-sandbox.js';
import { buildEncryptedData } from '../../src/crypto/s2s-cipher.js';
import { AUTH, OTHER } from '../helpers/payments-api.js';

let sandbox: TestSandbox;
beforeEach(() => {
  sandbox = createTestSandbox();
});
afterEach(() => sandbox.close());

const DAY_MS = 24 * 60 * 60 * 1000;
const PAYMENT = { amount: 1050, currency: 'EUR', method: 'card', routing: 'smart', customer: { country: 'NL' } };

const count = (table: string) => sandbox.db.prepare(`SELECT COUNT(*) FROM ${table}`).pluck().get() as number;
const keyed = (key: string, headers: Record<string, string> = {}) => ({ ...headers, 'idempotency-key': key });

describe('replaying the first answer', () => {
  it('answers a repeated S2S payment with the first response and Idempotent-Replayed: true', async () => {
    const body = s2sBody({ ccno: '4242424242424242' });
    const first = await sandbox.request('POST', '/api/s2s', body, keyed('order-1001'));
    const again = await sandbox.request('POST', '/api/s2s', body, keyed('order-1001'));
    expect(first.status).toBe(200);
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    expect(again.status).toBe(200);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.text).toBe(first.text);
    expect(again.headers.get('content-type')).toBe(first.headers.get('content-type'));
    expect(again.headers.get('x-request-id')).toMatch(/^req_/);
    expect(count('transactions')).toBe(1);
  });

  it('replays an encrypted S2S payment, scoped by the public_key at the end of encrypted_data', async () => {
    const query = new URLSearchParams({
      ...(s2sBody({ ccno: '4242424242424242' }) as Record<string, string>),
      terNO: String(CREDS.terNO),
      encryption_method: 'none',
    }).toString();
    const form = new URLSearchParams({
      encrypted_data: buildEncryptedData(query, { publicKey: CREDS.publicKey, privateKey: CREDS.privateKey }),
    }).toString();
    const headers = keyed('enc-1', { 'content-type': 'application/x-www-form-urlencoded' });
    const first = await sandbox.request('POST', '/api/s2s/encrypt', form, headers);
    const again = await sandbox.request('POST', '/api/s2s/encrypt', form, headers);
    expect(first.status).toBe(200);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.json.transID).toBe(first.json.transID);
    expect(count('transactions')).toBe(1);
  });

  it('replays a /v1/ payment: one payment, the same id', async () => {
    const first = await sandbox.request('POST', '/v1/payments', PAYMENT, keyed('pay-1', AUTH));
    const again = await sandbox.request('POST', '/v1/payments', PAYMENT, keyed('pay-1', AUTH));
    expect(first.status).toBe(200);
    expect(again.json.id).toBe(first.json.id);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect((await sandbox.request('GET', '/v1/payments?limit=100', undefined, AUTH)).json.data).toHaveLength(1);
  });

  it('replays a 4xx answer too: the same mistake gets the same error', async () => {
    const body = s2sBody({ ccno: '4242424242424241' });
    const first = await sandbox.request('POST', '/api/s2s', body, keyed('bad-card'));
    const again = await sandbox.request('POST', '/api/s2s', body, keyed('bad-card'));
    expect(first.status).toBe(400);
    expect(again.status).toBe(400);
    expect(again.json).toEqual(first.json);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
  });

  it('does not keep a 5xx answer: the retry runs the handler again', async () => {
    const create = sandbox.services.s2s.create;
    sandbox.services.s2s.create = () => {
      throw new Error('simulated bug');
    };
    const body = s2sBody({ ccno: '4242424242424242' });
    const failed = await sandbox.request('POST', '/api/s2s', body, keyed('retry-me'));
    expect(failed.status).toBe(500);
    sandbox.services.s2s.create = create;
    const retried = await sandbox.request('POST', '/api/s2s', body, keyed('retry-me'));
    expect(retried.status).toBe(200);
    expect(retried.headers.get('idempotent-replayed')).toBeNull();
    expect(count('transactions')).toBe(1);
  });

  it('runs the request again once the key is older than 24 h of sandbox time', async () => {
    const first = await sandbox.request('POST', '/v1/payments', PAYMENT, keyed('daily', AUTH));
    sandbox.clock.advance(DAY_MS - 1000);
    expect((await sandbox.request('POST', '/v1/payments', PAYMENT, keyed('daily', AUTH))).json.id).toBe(first.json.id);
    sandbox.clock.advance(1000);
    const later = await sandbox.request('POST', '/v1/payments', PAYMENT, keyed('daily', AUTH));
    expect(later.status).toBe(200);
    expect(later.json.id).not.toBe(first.json.id);
    expect(later.headers.get('idempotent-replayed')).toBeNull();
  });
  it('forgets keys after a 25 h clock advance: the same key creates a new payment, and expired keys leave the table', async () => {
    const first = await sandbox.request('POST', '/v1/payments', PAYMENT, keyed('before', AUTH));
    await sandbox.request('POST', '/v1/payments', PAYMENT, keyed('other-before', AUTH));
    expect((await sandbox.request('POST', '/_sandbox/clock/advance', { duration: '25h' })).status).toBe(200);
    const later = await sandbox.request('POST', '/v1/payments', PAYMENT, keyed('before', AUTH));
    expect(later.status).toBe(200);
    expect(later.headers.get('idempotent-replayed')).toBeNull();
    expect(later.json.id).not.toBe(first.json.id);
    expect((await sandbox.request('GET', '/v1/payments?limit=100', undefined, AUTH)).json.data).toHaveLength(3);
    // The new answer replays from now on; the other expired key is gone.
    expect((await sandbox.request('POST', '/v1/payments', PAYMENT, keyed('before', AUTH))).json.id).toBe(later.json.id);
    expect(sandbox.db.prepare('SELECT key FROM idempotency_keys').pluck().all()).toEqual(['before']);
  });
});

describe('refusing another request under the same key', () => {
  it('answers 409 idempotency_key_reused for the same key with a different body', async () => {
    await sandbox.request('POST', '/v1/payments', PAYMENT, keyed('k-1', AUTH));
    const res = await sandbox.request('POST', '/v1/payments', { ...PAYMENT, amount: 2000 }, keyed('k-1', AUTH));
    expect(res.status).toBe(409);
    expect(res.json.error).toMatchObject({ type: 'idempotency_error', code: 'idempotency_key_reused', param: 'Idempotency-Key' });
    expect(res.json.error.message).toContain('with a different body');
    expect((await sandbox.request('GET', '/v1/payments?limit=100', undefined, AUTH)).json.data).toHaveLength(1);
  });

  it('answers 409 for the same key on another endpoint, naming the first one', async () => {
    await sandbox.request('POST', '/v1/payments', PAYMENT, keyed('k-2', AUTH));
    const res = await sandbox.request(
      'POST',
      '/v1/webhook_endpoints',
      { url: 'https://shop.example/h', events: ['*'] },
      keyed('k-2', AUTH),
    );
    expect(res.status).toBe(409);
    expect(res.json.error.message).toContain('for POST /v1/payments');
  });

  it('treats a body that differs only in whitespace as a different request', async () => {
    const raw = JSON.stringify(PAYMENT);
    await sandbox.request('POST', '/v1/payments', raw, { ...keyed('k-3', AUTH), 'content-type': 'application/json' });
    const res = await sandbox.request('POST', '/v1/payments', `${raw} `, { ...keyed('k-3', AUTH), 'content-type': 'application/json' });
    expect(res.json.error.code).toBe('idempotency_key_reused');
  });
});

describe('what is stored of a keyed request', () => {
  it('keeps no hash a card could be found back from: not the SHA-256 of the bytes sent', async () => {
    // The stored answer names the card's first six and last four digits and its expiry: with the
    // SHA-256 of the bytes, trying the middle digits and the CVV (about 10^8 guesses) would find them.
    const raw = '{"amount":1050,"currency":"EUR","card":{"number":"4000000000009995","exp_month":12,"exp_year":2030,"cvc":"737"}}';
    const res = await sandbox.request('POST', '/v1/payments', raw, { ...keyed('k-card', AUTH), 'content-type': 'application/json' });
    expect(res.status, res.text).toBe(200);
    const row = sandbox.db.prepare('SELECT * FROM idempotency_keys WHERE key = ?').get('k-card') as Record<string, unknown>;
    const stored = JSON.stringify(row);
    expect(stored).not.toContain(createHash('sha256').update(`POST\n/v1/payments\n${raw}`).digest('hex'));
    expect(stored).not.toMatch(/4000000000009995|"737"/);
    // The same bytes are still the same request, and a CVV that differs is another one.
    expect(
      (await sandbox.request('POST', '/v1/payments', raw, { ...keyed('k-card', AUTH), 'content-type': 'application/json' })).json.id,
    ).toBe(res.json.id);
    const otherCvc = raw.replace('"737"', '"738"');
    const refused = await sandbox.request('POST', '/v1/payments', otherCvc, {
      ...keyed('k-card', AUTH),
      'content-type': 'application/json',
    });
    expect(refused.json.error.code).toBe('idempotency_key_reused');
  });
});

describe('keys stored by an earlier version (the SHA-256 of the bytes)', () => {
  it('replays the same bytes and refuses others, for a body with a card too', async () => {
    const raw = JSON.stringify({
      amount: 1050,
      currency: 'EUR',
      card: { number: '4242424242424242', exp_month: 12, exp_year: 2030, cvc: '737' },
    });
    const headers = { ...keyed('k-old', AUTH), 'content-type': 'application/json' };
    const first = await sandbox.request('POST', '/v1/payments', raw, headers);
    // The row as an earlier version wrote it.
    sandbox.db
      .prepare("UPDATE idempotency_keys SET fingerprint = ? WHERE key = 'k-old'")
      .run(createHash('sha256').update(`POST\n/v1/payments\n${raw}`).digest('hex'));
    expect((await sandbox.request('POST', '/v1/payments', raw, headers)).json.id).toBe(first.json.id);
    expect((await sandbox.request('POST', '/v1/payments', `${raw} `, headers)).json.error.code).toBe('idempotency_key_reused');
  });
});

describe('concurrent requests with the same key', () => {
  it('create exactly one S2S payment; every duplicate gets its answer', async () => {
    const body = s2sBody({ ccno: '4242424242424242' });
    const answers = await Promise.all(Array.from({ length: 5 }, () => sandbox.request('POST', '/api/s2s', body, keyed('race-s2s'))));
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 200, 200]);
    expect(new Set(answers.map((a) => a.json.transID)).size).toBe(1);
    expect(answers.filter((a) => a.headers.get('idempotent-replayed') === 'true')).toHaveLength(4);
    expect(count('transactions')).toBe(1);
  });

  it('create exactly one /v1/ payment', async () => {
    const [a, b] = await Promise.all([
      sandbox.request('POST', '/v1/payments', PAYMENT, keyed('race-v1', AUTH)),
      sandbox.request('POST', '/v1/payments', PAYMENT, keyed('race-v1', AUTH)),
    ]);
    expect(a.status).toBe(200);
    expect(b.status).toBe(200);
    expect(a.json.id).toBe(b.json.id);
    expect((await sandbox.request('GET', '/v1/payments?limit=100', undefined, AUTH)).json.data).toHaveLength(1);
  });

  it('refuses a duplicate with another body at once while the first request is still running', async () => {
    const body = JSON.stringify(PAYMENT);
    await sandbox.services.idempotency.admit({ scope: 'mer_sandbox', key: 'busy', method: 'POST', path: '/v1/payments', body });
    const res = await sandbox.request('POST', '/v1/payments', { ...PAYMENT, amount: 2000 }, keyed('busy', AUTH));
    expect(res.status).toBe(409);
    expect(res.json.error.code).toBe('idempotency_key_reused');
  });

  it('runs a waiting duplicate itself when the first request ends in a 5xx', async () => {
    const body = JSON.stringify(PAYMENT);
    const idempotency = sandbox.services.idempotency;
    await idempotency.admit({ scope: 'mer_sandbox', key: 'fails', method: 'POST', path: '/v1/payments', body });
    // Resolves once the duplicate is inside admit(), that is waiting for the first request.
    const admit = idempotency.admit.bind(idempotency);
    const duplicateWaits = new Promise<void>((resolve) => {
      idempotency.admit = (request) => {
        const admission = admit(request);
        resolve();
        return admission;
      };
    });
    const waiting = sandbox.request('POST', '/v1/payments', body, { ...keyed('fails', AUTH), 'content-type': 'application/json' });
    await duplicateWaits;
    idempotency.release('mer_sandbox', 'fails'); // the first request's answer was a 5xx
    const res = await waiting;
    expect(res.status).toBe(200);
    expect(res.headers.get('idempotent-replayed')).toBeNull();
    expect(
      (await sandbox.request('POST', '/v1/payments', body, { ...keyed('fails', AUTH), 'content-type': 'application/json' })).json.id,
    ).toBe(res.json.id);
  });

  it('answers 409 idempotency_key_in_progress when the first request takes too long', async () => {
    sandbox.services.idempotency.inProgressWaitMs = 50;
    const body = JSON.stringify(PAYMENT);
    // A request holding the key right now (admitted, no answer yet).
    expect(
      await sandbox.services.idempotency.admit({ scope: 'mer_sandbox', key: 'slow', method: 'POST', path: '/v1/payments', body }),
    ).toEqual({ kind: 'run' });
    const res = await sandbox.request('POST', '/v1/payments', body, { ...keyed('slow', AUTH), 'content-type': 'application/json' });
    expect(res.status).toBe(409);
    expect(res.json.error).toMatchObject({ code: 'idempotency_key_in_progress', param: 'Idempotency-Key' });
    expect(res.headers.get('retry-after')).toBe('1');
  });
});

describe('scope and format of keys', () => {
  it('keeps keys per merchant: the same key used by two merchants never collides', async () => {
    const mine = await sandbox.request('POST', '/v1/payments', PAYMENT, keyed('shared', AUTH));
    const theirs = await sandbox.request('POST', '/v1/payments', { ...PAYMENT, amount: 999 }, keyed('shared', OTHER));
    expect(theirs.status).toBe(200);
    expect(theirs.headers.get('idempotent-replayed')).toBeNull();
    expect(theirs.json.id).not.toBe(mine.json.id);
    // Not even an identical body replays across merchants (S2S: scoped by the terminal's merchant).
    const body = s2sBody({ ccno: '4242424242424242', reference: 'same-ref' });
    const a = await sandbox.request('POST', '/api/s2s', body, keyed('shared-s2s'));
    const b = await sandbox.request(
      'POST',
      '/api/s2s',
      { ...body, public_key: CREDS.other.publicKey, terNO: CREDS.other.terNO },
      keyed('shared-s2s'),
    );
    expect([a.status, b.status]).toEqual([200, 200]);
    expect(b.headers.get('idempotent-replayed')).toBeNull();
    expect(b.json.transID).not.toBe(a.json.transID);
  });

  it.each([
    ['', 'empty'],
    ['x'.repeat(256), 'too long'],
    ['tab\there', 'a control character'],
    ['café', 'not ASCII'],
  ])('refuses the key %j (%s) with 400 naming the header', async (key) => {
    const res = await sandbox.request('POST', '/v1/payments', PAYMENT, keyed(key, AUTH));
    expect(res.status).toBe(400);
    expect(res.json.error).toMatchObject({ code: 'parameter_invalid', param: 'Idempotency-Key' });
    expect(res.json.error.message).toContain('1-255 printable ASCII characters');
    expect((await sandbox.request('GET', '/v1/payments', undefined, AUTH)).json.data).toEqual([]);
  });

  it('scopes by the authenticated merchant whatever the spelling of the Bearer scheme', async () => {
    const lower = { authorization: `bearer ${CREDS.apiKey}` };
    const first = await sandbox.request('POST', '/v1/payments', PAYMENT, keyed('case', lower));
    const again = await sandbox.request('POST', '/v1/payments', PAYMENT, keyed('case', AUTH));
    expect(first.status).toBe(200);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.json.id).toBe(first.json.id);
  });

  it('accepts a 255-character key', async () => {
    const res = await sandbox.request('POST', '/v1/payments', PAYMENT, keyed('k'.repeat(255), AUTH));
    expect(res.status).toBe(200);
  });

  it('leaves requests with an unknown credential alone: they are refused every time, never replayed', async () => {
    const bad = { authorization: 'Bearer sk_test_nobody' };
    const first = await sandbox.request('POST', '/v1/payments', PAYMENT, keyed('nobody', bad));
    const again = await sandbox.request('POST', '/v1/payments', PAYMENT, keyed('nobody', bad));
    expect([first.status, again.status]).toEqual([401, 401]);
    expect(again.headers.get('idempotent-replayed')).toBeNull();
    expect(count('idempotency_keys')).toBe(0);
  });

  it('ignores the header outside public POSTs (control API, GET)', async () => {
    const advance = await sandbox.request('POST', '/_sandbox/clock/advance', { duration: '1m' }, keyed('ctl'));
    const again = await sandbox.request('POST', '/_sandbox/clock/advance', { duration: '1m' }, keyed('ctl'));
    expect(again.json.now).not.toBe(advance.json.now);
    expect((await sandbox.request('GET', '/v1/events', undefined, keyed('g', AUTH))).status).toBe(200);
    expect(count('idempotency_keys')).toBe(0);
  });
});
