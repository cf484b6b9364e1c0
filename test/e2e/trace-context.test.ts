// W3C Trace Context across the sandbox (docs/tracing.md): a traceparent on the merchant's request
// comes back on every webhook about the payment as a child (same trace id, a span id of the
// attempt's own, the flags kept, version 00) with the tracestate passed on, whatever signs the
// webhook, on retries and replays too; a malformed traceparent is ignored (the request is answered
// as any, its webhooks carry none). The receiver is a fake merchant on 127.0.0.1.
import { describe, expect, it } from 'vitest';
import { SIGNATURE_MODES } from '../../src/domain/vocabularies.js';
import { useSandboxWithMerchant } from '../helpers/sandbox-with-merchant.js';
import { s2sBody } from '../helpers/test-sandbox.js';
import { waitFor } from '../helpers/wait-for.js';

const TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736';
const PARENT_ID = '00f067aa0ba902b7';
const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/;

/** The fields of a webhook's traceparent header (it must be a version-00 one). */
function traceOf(headers: Record<string, string | string[] | undefined>) {
  const match = TRACEPARENT.exec(String(headers.traceparent));
  expect(match, `a version-00 traceparent, got ${headers.traceparent}`).not.toBeNull();
  const [, traceId, spanId, flags] = match as unknown as [string, string, string, string];
  return { traceId, spanId, flags };
}

for (const signature of SIGNATURE_MODES) {
  describe(`webhooks carry a child traceparent (--signature ${signature})`, () => {
    const env = useSandboxWithMerchant({ flags: { retry: '1s', signature }, merchant: { statuses: [500] } });

    it('a 3-D Secure payment: the retried webhook after the challenge and its replay, each a span of its own', async () => {
      const hook = `/hook/3ds-${signature}`;
      const created = await env.http.post('/api/s2s', s2sBody({ webhook_url: `${env.merchant.url}${hook}` }), {
        traceparent: `00-${TRACE_ID}-${PARENT_ID}-01`,
        tracestate: 'shop=checkout-7,vendor=x1',
      });
      expect(created.status).toBe(200);
      const transID = created.json.transID as string;
      // The challenge is completed by the control API, a request with no traceparent: the payment's trace goes on.
      const done = await env.http.post(`/_sandbox/transactions/${transID}/authenticate`, { outcome: 'approve' });
      expect(done.status).toBe(200);
      // The receiver answers 500 to the first attempt: the retry (1 s later) gets its own span id.
      const attempts = await waitFor(() => {
        const got = env.merchant.at(hook);
        return got.length >= 2 ? got : undefined;
      }, 'the webhook and its retry');
      const replay = await env.http.post(`/_sandbox/deliveries/${String(attempts[0]!.headers['x-sandbox-delivery-id'])}/replay`);
      expect(replay.status).toBe(201);
      const all = await waitFor(() => {
        const got = env.merchant.at(hook);
        return got.length >= 3 ? got : undefined;
      }, 'the replay');
      const traces = all.map((r) => traceOf(r.headers));
      for (const trace of traces) expect(trace).toMatchObject({ traceId: TRACE_ID, flags: '01' });
      const spanIds = traces.map((t) => t.spanId);
      expect(new Set([...spanIds, PARENT_ID]).size, `span ids ${spanIds.join(' ')} all new`).toBe(spanIds.length + 1);
      for (const r of all) expect(r.headers.tracestate).toBe('shop=checkout-7,vendor=x1');
      // The timeline shows the trace the webhooks joined.
      const timeline = await env.http.get(`/_sandbox/payments/${transID}/timeline`);
      expect(timeline.json.payment.trace_id).toBe(TRACE_ID);
    });
  });
}

describe('traceparents that are not valid are ignored, as the W3C says', () => {
  const env = useSandboxWithMerchant({ flags: { retry: 'none' } });
  const malformed = [
    `00-${TRACE_ID.toUpperCase()}-${PARENT_ID}-01`,
    `00-${'0'.repeat(32)}-${PARENT_ID}-01`,
    `00-${TRACE_ID}-${'0'.repeat(16)}-01`,
    `ff-${TRACE_ID}-${PARENT_ID}-01`,
    `00-${TRACE_ID}-${PARENT_ID}-01-extra`,
    'not a traceparent',
  ];
  for (const [i, traceparent] of malformed.entries())
    it(`"${traceparent}" is no 400, and its webhook carries no traceparent`, async () => {
      const hook = `/hook/malformed-${i}`;
      const created = await env.http.post('/api/s2s', s2sBody({ ccno: '4242424242424242', webhook_url: `${env.merchant.url}${hook}` }), {
        traceparent,
        tracestate: 'shop=x',
      });
      expect(created.status).toBe(200);
      const [got] = await waitFor(() => {
        const all = env.merchant.at(hook);
        return all.length > 0 ? all : undefined;
      }, 'the webhook');
      expect(got!.headers.traceparent).toBeUndefined();
      expect(got!.headers.tracestate).toBeUndefined();
    });

  it('a later version with more fields is read by its first four, and answered with version 00', async () => {
    const hook = '/hook/future-version';
    const created = await env.http.post('/api/s2s', s2sBody({ ccno: '4242424242424242', webhook_url: `${env.merchant.url}${hook}` }), {
      traceparent: `cc-${TRACE_ID}-${PARENT_ID}-00-what-the-future-holds`,
    });
    expect(created.status).toBe(200);
    const [got] = await waitFor(() => {
      const all = env.merchant.at(hook);
      return all.length > 0 ? all : undefined;
    }, 'the webhook');
    // Flags 00 (not sampled) are kept as they came.
    expect(traceOf(got!.headers)).toMatchObject({ traceId: TRACE_ID, flags: '00' });
  });
});
