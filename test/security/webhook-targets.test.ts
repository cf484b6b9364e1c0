// Webhook URLs never name the sandbox's own control API: a merchant's endpoint or webhook_url at
// /_sandbox made the delivery worker (a loopback caller) drive it, and lose another merchant's
// dispute. Every field that takes a webhook URL refuses one with a 400 naming the field, in every
// spelling of an address of this machine and of the path; the worker refuses the ones stored before
// (test/e2e/webhook-targets.test.ts). Other paths of the sandbox, and /_sandbox elsewhere, pass.
import { hostname } from 'node:os';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isControlPath, isLocalAddress, namesThisMachine } from '../../src/domain/control-target.js';
import { createTestSandbox, s2sBody, type TestSandbox } from '../helpers/test-sandbox.js';
import { seedObjects } from '../helpers/seed-objects.js';
import { AUTH, paymentBody } from '../helpers/payments-api.js';

let sb: TestSandbox;
beforeEach(() => {
  // --public-url http://sandbox.test, --host 127.0.0.1
  sb = createTestSandbox();
});
afterEach(() => sb.close());

/** The control API of this machine, spelled every way the URL parser and the sandbox's router accept. */
const REFUSED = [
  'http://127.0.0.1:4010/_sandbox/reset',
  'http://localhost:4010/_sandbox/reset',
  'http://[::1]:4010/_sandbox/reset',
  'http://0.0.0.0:4010/_sandbox/reset',
  'http://127.9.8.7:4010/_sandbox/reset',
  `http://${hostname()}:4010/_sandbox/reset`,
  'http://sandbox.test/_sandbox/reset',
  'http://SANDBOX.TEST./_sandbox/reset',
  'http://2130706433:4010/_sandbox/reset',
  'http://0x7f000001:4010/_sandbox/reset',
  'http://0x7f.1:4010/_sandbox/reset',
  'http://127.1:4010/_sandbox/reset',
  'http://0:4010/_sandbox/reset',
  'http://localhost.:4010/_sandbox/reset',
  'http://shop.localhost:4010/_sandbox/reset',
  'http://[::ffff:127.0.0.1]:4010/_sandbox/reset',
  'http://[0:0:0:0:0:0:0:1]:4010/_sandbox',
  'http://[::]:4010/_sandbox/reset',
  'http://LOCALHOST:4010/_SANDBOX/reset',
  'http://127.0.0.1:4010/%5Fsandbox/reset',
  'http://127.0.0.1:4010/%5fSANDBOX/reset',
  'http://127.0.0.1:4010/%255Fsandbox/reset',
  'http://127.0.0.1:4010/_sandbox%2Freset',
  'http://127.0.0.1:4010//_sandbox/reset',
  'http://127.0.0.1:4010///_sandbox/chargebacks/cb_1/lose',
  'http://127.0.0.1:4010/x/../_sandbox/reset',
  'http://127.0.0.1:4010/x/%2e%2e/_sandbox/reset',
  'http://127.0.0.1:4010/x/%252e%252e/_sandbox/reset',
  'http://127.0.0.1:4010/_sandbox?x=1',
  'https://127.0.0.1:9999/_sandbox/reset',
];

/** URLs that are not the control API of this machine. */
const ACCEPTED = [
  'http://127.0.0.1:4010/api/s2s',
  'http://127.0.0.1:3000/webhooks',
  'http://127.0.0.1:3000/hooks/_sandbox',
  'https://shop.example/_sandbox/hook',
  'http://sandbox.test.example/_sandbox/reset',
  'http://128.0.0.1/_sandbox/reset',
];

/** [field, route, headers, body with `url` in that field] of every field that takes a webhook URL. */
const FIELDS: Array<
  [string, (ids: Awaited<ReturnType<typeof seedObjects>>) => string, Record<string, string>, (url: string) => Record<string, unknown>]
> = [
  ['webhook_url', () => '/api/s2s', {}, (url) => s2sBody({ webhook_url: url })],
  ['webhook_url', () => '/v1/payments', AUTH, (url) => paymentBody({ webhook_url: url })],
  [
    'webhook_url',
    () => '/v1/checkout/sessions',
    AUTH,
    (url) => ({ amount: 100, currency: 'EUR', methods: ['card'], return_url: 'https://shop.example/r', webhook_url: url }),
  ],
  ['url', () => '/v1/webhook_endpoints', AUTH, (url) => ({ url, events: ['*'] })],
  ['url', (ids) => `/v1/webhook_endpoints/${ids.endpoint}`, AUTH, (url) => ({ url })],
  ['to', (ids) => `/_sandbox/deliveries/${ids.delivery}/replay`, {}, (url) => ({ to: url })],
  ['to', (ids) => `/_sandbox/events/${ids.event}/replay`, {}, (url) => ({ to: url })],
  ['to', () => '/_sandbox/events/trigger', {}, (url) => ({ type: 'payment.captured', to: url })],
];

const count = (table: string) => sb.db.prepare(`SELECT COUNT(*) FROM ${table}`).pluck().get() as number;

describe('registration', () => {
  it.each(
    FIELDS.map(([field, path, headers, body]) => ({
      field,
      path,
      headers,
      body,
      route: path({ endpoint: '{id}', delivery: '{id}', event: '{id}' } as never),
    })),
  )(
    '$field of POST $route refuses the control API with a 400 naming the field, and stores nothing',
    async ({ field, path, headers, body }) => {
      const ids = await seedObjects(sb);
      const before = {
        payments: count('payments'),
        transactions: count('transactions'),
        deliveries: count('deliveries'),
        events: count('events'),
        endpoints: sb.db.prepare('SELECT url FROM webhook_endpoints').pluck().all(),
      };
      const res = await sb.request('POST', path(ids), body('http://127.0.0.1:4010/_sandbox/reset'), headers);
      expect(res.status, res.text).toBe(400);
      expect(res.json.error).toMatchObject({
        code: 'parameter_invalid',
        param: field,
        message: expect.stringContaining(`${field} points at the sandbox's own control API`),
      });
      expect({
        payments: count('payments'),
        transactions: count('transactions'),
        deliveries: count('deliveries'),
        events: count('events'),
        endpoints: sb.db.prepare('SELECT url FROM webhook_endpoints').pluck().all(),
      }).toEqual(before);
    },
  );

  it.each(REFUSED)('%s is refused', async (url) => {
    const res = await sb.request('POST', '/v1/webhook_endpoints', { url, events: ['*'] }, AUTH);
    expect(res.status, res.text).toBe(400);
    expect(res.json.error).toMatchObject({ code: 'parameter_invalid', param: 'url' });
  });

  it.each(ACCEPTED)('%s is accepted', async (url) => {
    const res = await sb.request('POST', '/v1/webhook_endpoints', { url, events: ['*'] }, AUTH);
    expect(res.status, res.text).toBe(200);
  });
});

describe('the rule', () => {
  it('reads the path as the router does', () => {
    expect(
      ['/_sandbox', '/_Sandbox/x', '/%5F%73andbox', '//_sandbox', '\\_sandbox', '/a/b/../../_sandbox', '/%2e%2e/_sandbox'].map(
        isControlPath,
      ),
    ).toEqual(Array(7).fill(true));
    expect(['/', '/api/s2s', '/hooks/_sandbox', '/sandbox', '/%5Xsandbox'].map(isControlPath)).toEqual(Array(5).fill(false));
  });

  it('knows loopback and unspecified addresses in the forms DNS and the OS give them', () => {
    expect(
      [
        '127.0.0.1',
        '127.255.0.9',
        '0.0.0.0',
        '::1',
        '::',
        '[::1]',
        '::ffff:127.0.0.1',
        '::ffff:7f00:1',
        '0:0:0:0:0:ffff:7f00:1',
        '::7f00:1',
      ].map(isLocalAddress),
    ).toEqual(Array(10).fill(true));
    expect(['128.0.0.1', '10.0.0.1', '::2', 'fe80::1', '::ffff:a00:1', '2001:db8::1', 'localhost'].map(isLocalAddress)).toEqual(
      Array(7).fill(false),
    );
  });

  it('compares names without case or trailing dots', () => {
    expect(namesThisMachine('Build-Box.', ['build-box'])).toBe(true);
    expect(namesThisMachine('a.localhost..', [])).toBe(true);
    expect(namesThisMachine('build-box.example', ['build-box'])).toBe(false);
  });
});
