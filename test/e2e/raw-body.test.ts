// The commonest webhook bug, as a merchant writes it: the HMAC checked over the body parsed and
// serialised again (JSON.stringify(JSON.parse(raw)) in Node, json_encode(json_decode($raw)) in PHP,
// json.dumps(json.loads(raw)) in Python) instead of the bytes received. It passed here while the
// sandbox's JSON bodies were exactly what JSON.stringify writes. Every JSON webhook must now fail
// such a handler, in every signature mode and however it is sent (the worker, a registered endpoint,
// a replay, a trigger's `to`), and the audit must say which handler does it and how to fix it.
import { Webhook } from 'standardwebhooks';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type AuditResult, type SandboxHandle, startSandbox } from '../../src/index.js';
import { verifySignature } from '../../src/signatures/signing.js';
import { startFakeMerchant, type FakeMerchant, type ReceivedWebhook } from '../helpers/fake-merchant.js';
import { installed, type LanguageHandler, startPhpHandler, startPythonHandler } from '../helpers/language-handlers.js';
import { CREDS } from '../helpers/test-sandbox.js';
import { waitFor } from '../helpers/wait-for.js';

type Mode = 'plain' | 'timestamped' | 'standard';

/** Whether `body` verifies with the headers of `request` in `mode`, with the seeded merchant's secret. */
function verifies(request: ReceivedWebhook, body: string, mode: Mode, secret: string): boolean {
  if (mode === 'standard') {
    try {
      new Webhook(secret).verify(body, request.headers as Record<string, string>);
      return true;
    } catch {
      return false;
    }
  }
  const signature = request.headers['x-sandbox-signature'] as string | undefined;
  return verifySignature(signature, secret, body, mode, Number(request.headers['x-sandbox-timestamp']));
}

let receiver: FakeMerchant | undefined;
afterEach(async () => {
  await receiver?.close();
  receiver = undefined;
});

describe('a handler that verifies JSON.stringify(JSON.parse(raw)) refuses every JSON webhook', () => {
  it.each<Mode>(['plain', 'timestamped', 'standard'])(
    '%s signatures: the worker, a registered endpoint, a replay and a trigger to a URL all send bytes it cannot verify',
    async (mode) => {
      const sandbox = await startSandbox({ signature: mode });
      try {
        // Both handlers in one: what a correct one verifies, and what the re-serialising one does.
        const checks: Array<{ raw: boolean; reserialised: boolean; endpoint: boolean }> = [];
        receiver = await startFakeMerchant({
          answer: (request) => {
            const secret = request.path === '/endpoint' ? endpointSecret : sandbox.credentials.webhookSecret;
            const reserialised = JSON.stringify(JSON.parse(request.body));
            checks.push({
              raw: verifies(request, request.body, mode, secret),
              reserialised: verifies(request, reserialised, mode, secret),
              endpoint: request.path === '/endpoint',
            });
            return 200;
          },
        });
        const api = (path: string, body: unknown) =>
          fetch(`${sandbox.url}${path}`, {
            method: 'POST',
            headers: { 'content-type': 'application/json', authorization: `Bearer ${CREDS.apiKey}` },
            body: JSON.stringify(body),
          }).then((r) => r.json() as Promise<Record<string, unknown>>);
        const endpoint = await api('/v1/webhook_endpoints', { url: `${receiver.url}/endpoint`, events: ['payment.captured'] });
        const endpointSecret = endpoint.secret as string;
        await api('/v1/payments', { amount: 1250, currency: 'EUR', token: 'tok_visa', webhook_url: `${receiver.url}/webhooks` });
        const delivered = await sandbox.waitForDelivery({ event: 'payment.captured', url: `${receiver.url}/webhooks` });
        await sandbox.waitForDelivery({ event: 'payment.captured', url: `${receiver.url}/endpoint` });
        const control = (path: string, body: unknown) =>
          fetch(`${sandbox.url}/_sandbox${path}`, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify(body),
          });
        expect((await control(`/deliveries/${delivered.id}/replay`, {})).status).toBeLessThan(300);
        expect((await control('/events/trigger', { type: 'refund.created', to: `${receiver.url}/webhooks` })).status).toBeLessThan(300);
        await waitFor(() => checks.length >= 5 || undefined, 'the deliveries, the replay and the trigger', 30_000);
        expect(checks.length).toBeGreaterThanOrEqual(5);
        expect(checks.filter((c) => c.endpoint).length).toBeGreaterThan(0);
        for (const check of checks) expect(check).toMatchObject({ raw: true, reserialised: false });
      } finally {
        await sandbox.close();
      }
    },
  );
});

describe('the audit names a handler that verifies re-serialised JSON, with the fix', () => {
  let sandbox: SandboxHandle;
  beforeAll(async () => {
    sandbox = await startSandbox();
  });
  afterAll(async () => {
    await sandbox.close();
  });

  const rawBodyCase = (result: AuditResult) => result.cases.find((c) => c.id === 'raw-body')!;

  /** The audit of a handler at `url`: the raw-body case and the verdict. */
  async function audit(url: string) {
    const result = await sandbox.auditWebhooks(url);
    return { passed: result.passed, raw: rawBodyCase(result), valid: result.cases.find((c) => c.id === 'valid')! };
  }

  const recipe =
    "Express app.post('/webhooks', express.raw({ type: 'application/json' }), ...) then req.body is the Buffer; Node http Buffer.concat() of the request's 'data' chunks; PHP file_get_contents('php://input'); Python request.get_data() (Flask) or request.body (Django)";

  it('Node: JSON.stringify(JSON.parse(raw)) fails the raw-body case, named; the raw bytes pass', async () => {
    const node = (reserialise: boolean) => (request: ReceivedWebhook) => {
      const body =
        reserialise && request.headers['content-type'] === 'application/json' ? JSON.stringify(JSON.parse(request.body)) : request.body;
      return verifySignature(request.headers['x-sandbox-signature'] as string, CREDS.secret, body, 'plain', 0) ? 200 : 401;
    };
    receiver = await startFakeMerchant({ answer: node(true) });
    const bad = await audit(`${receiver.url}/webhooks`);
    expect(bad.passed).toBe(false);
    expect(bad.raw).toMatchObject({ level: 'must-pass', result: 'fail', status: 401 });
    expect(bad.raw.reason).toMatch(
      /^answered 401 in \d+ ms to a correctly signed body that does not survive a parse and serialise again \(indented, a final newline, "é" and "\\u00e9", "\/" and "\\\/"\), but 200 to the same event in the form Node's JSON\.stringify writes: the handler verifies JSON it parsed and serialised again with JSON\.stringify, such as JSON\.stringify\(req\.body\) after express\.json\(\); verify the HMAC over the bytes received, before any parsing: /,
    );
    expect(bad.raw.reason).toContain(recipe);
    await receiver.close();

    receiver = await startFakeMerchant({ answer: node(false) });
    const good = await audit(`${receiver.url}/webhooks`);
    expect(good.raw).toMatchObject({ result: 'pass', status: 200 });
    expect(good.passed).toBe(true);
  });

  it('a handler that trims the body before verifying is named as one that trims', async () => {
    receiver = await startFakeMerchant({
      answer: (request) =>
        verifySignature(request.headers['x-sandbox-signature'] as string, CREDS.secret, request.body.trim(), 'plain', 0) ? 200 : 401,
    });
    const trims = await audit(`${receiver.url}/webhooks`);
    expect(trims.raw.result).toBe('fail');
    expect(trims.raw.reason).toMatch(/but 200 to the same event without its final newline: the handler trims the body before verifying it/);
  });

  const languages: Array<[string, string, (verifies: 'raw' | 'reserialised', secret: string) => Promise<LanguageHandler>, string]> = [
    [
      'PHP',
      'php',
      startPhpHandler,
      "in the form PHP's json_encode writes: the handler verifies JSON it parsed and serialised again with json_encode",
    ],
    [
      'Python',
      'python3',
      startPythonHandler,
      "in the form Python's json.dumps writes: the handler verifies JSON it parsed and serialised again with json.dumps",
    ],
  ];

  for (const [language, command, start, named] of languages) {
    describe.skipIf(!installed(command))(language, () => {
      let handler: LanguageHandler | undefined;
      afterEach(async () => {
        await handler?.close();
        handler = undefined;
      });

      // Each test starts two interpreters, which a busy machine may take long to start.
      it('a real delivery is refused by the re-serialising handler and taken by the raw one', { timeout: 180_000 }, async () => {
        for (const [verifiesBy, status] of [
          ['reserialised', 401],
          ['raw', 200],
        ] as const) {
          handler = await start(verifiesBy, CREDS.secret);
          await fetch(`${sandbox.url}/v1/payments`, {
            method: 'POST',
            headers: { 'content-type': 'application/json', authorization: `Bearer ${CREDS.apiKey}` },
            body: JSON.stringify({ amount: 990, currency: 'EUR', token: 'tok_visa', webhook_url: `${handler.url}/webhooks` }),
          });
          const delivery = await waitFor(
            () => sandbox.deliveries().find((d) => d.url === `${handler!.url}/webhooks` && d.attempts.length > 0),
            `a delivery to the ${verifiesBy} ${language} handler`,
            30_000,
          );
          expect(delivery.attempts[0]!.responseStatus).toBe(status);
          await handler.close();
        }
      });

      it('the audit fails the re-serialising handler, naming what it does, and passes the raw one', { timeout: 180_000 }, async () => {
        handler = await start('reserialised', CREDS.secret);
        const bad = await audit(`${handler.url}/webhooks`);
        expect(bad.valid).toMatchObject({ result: 'fail', status: 401 });
        expect(bad.raw).toMatchObject({ result: 'fail', status: 401 });
        expect(bad.raw.reason).toContain(`but 200 to the same event ${named}`);
        expect(bad.raw.reason).toContain(recipe);
        await handler.close();

        handler = await start('raw', CREDS.secret);
        const good = await audit(`${handler.url}/webhooks`);
        expect(good.raw).toMatchObject({ result: 'pass', status: 200 });
        expect(good.valid).toMatchObject({ result: 'pass', status: 200 });
      });
    });
  }
});
