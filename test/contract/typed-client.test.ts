// The typed-client example (test/contract/typed-client/): openapi-typescript generates `paths` from
// the /openapi.json of a real sandbox at test time (so the example cannot drift from the document),
// tsc compiles the openapi-fetch client under --strict against them (an event narrowed on `event`
// and `data.object` included), and the same client then runs a whole payment, capture, partial
// refund, cancel, events list and checkout session on that sandbox.
import { execFile } from 'node:child_process';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { OpenAPI3 } from 'openapi-typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeTypedClientTypes } from '../../scripts/typed-client-types.js';
import { startSandbox, type SandboxHandle } from '../../src/library/start-sandbox.js';
import {
  amountCaptured,
  cardStopsAt,
  declinedRenewal,
  eventNames,
  openCheckout,
  payCaptureRefund,
  paymentEvents,
  paysandboxClient,
  showPayment,
} from './typed-client/merchant-client.js';

const root = join(import.meta.dirname, '../..');
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');

let sandbox: SandboxHandle;
beforeAll(async () => {
  sandbox = await startSandbox();
  const document = (await (await fetch(`${sandbox.url}/openapi.json`)).json()) as OpenAPI3;
  await writeTypedClientTypes(document, "a sandbox's /openapi.json (test/contract/typed-client.test.ts)");
});
afterAll(() => sandbox?.close());

describe('a typed client generated from /openapi.json', () => {
  it('compiles under tsc --strict', async () => {
    const compiled = await promisify(execFile)(process.execPath, [tsc, '-p', join(import.meta.dirname, 'typed-client/tsconfig.json')], {
      cwd: root,
    }).then(
      () => '',
      (err: { stdout?: string; message: string }) => err.stdout || err.message,
    );
    expect(compiled, 'tsc diagnostics').toBe('');
    // tsc checks openapi-fetch and 7 000 lines of generated types: seconds, more on a busy machine.
  });

  it('runs a payment, capture, partial refund, cancel, events list and checkout session on a real sandbox', async () => {
    const client = paysandboxClient(sandbox.url, sandbox.credentials.apiKey);
    const flow = await payCaptureRefund(client, 'typed-1');
    expect(flow.created).toMatchObject({ status: 'authorized', amount: 1050, amount_captured: 0, metadata: { order_id: 'typed-1' } });
    expect(flow.captured).toMatchObject({ status: 'captured', amount_captured: 600 });
    expect(flow.refund).toMatchObject({ payment_id: flow.created.id, status: 'pending', amount: 200 });
    expect(flow.canceled.status).toBe('canceled');

    // The refund succeeds 2 s (sandbox time) after it is made.
    await sandbox.clock.advance('2s');
    expect(await showPayment(client, flow.created.id)).toMatchObject({
      status: 'partially_refunded',
      amount_captured: 600,
      amount_refunded: 200,
    });
    expect(await eventNames(client, flow.created.id)).toEqual([
      'payment.authorized',
      'payment.captured',
      'refund.created',
      'refund.succeeded',
    ]);
    // Narrowed on event and data.object, the capture event's amount_captured is a number.
    const events = await paymentEvents(client, flow.created.id);
    expect(events.map((event) => event.data.object)).toEqual(['payment', 'payment', 'refund', 'refund']);
    expect(events.map(amountCaptured)).toEqual([undefined, 600, undefined, undefined]);

    const session = await openCheckout(client, 'https://shop.example/return');
    expect(session).toMatchObject({ status: 'open', methods: ['card', 'ideal'], paymentId: null });
    expect(session.url.startsWith(sandbox.url)).toBe(true);
  });

  it('stores a card, scripts its renewal to decline, and reads the advice and the token events it types', async () => {
    const client = paysandboxClient(sandbox.url, sandbox.credentials.apiKey);
    const renewal = await declinedRenewal(client, 'insufficient_funds');
    expect(renewal).toMatchObject({ status: 'declined', initiator: 'merchant', advice: 'try_again_later', scriptedLeft: [] });
    // The trigger saves a token of the renewing test card and sends its token.expiring.
    await sandbox.trigger('token.expiring');
    const events = await client.GET('/v1/events', { params: { query: { type: 'token.expiring' } } });
    expect(events.data?.data.map(cardStopsAt)).toEqual([expect.stringMatching(/^\d{4}-\d\d-01T00:00:00\.000Z$/)]);
  });
});
