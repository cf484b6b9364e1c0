// --otlp (docs/tracing.md): the spans of a 3-D Secure payment and its webhook reach an OTLP/HTTP
// collector, here a node:http server on 127.0.0.1 that decodes the JSON the exporter posts to
// /v1/traces: the API request as a server span in the merchant's trace (a child of its span), the
// state changes and the webhook attempt as its children, the attempt's span id the one in the
// webhook's traceparent. The sandbox is closed before the spans are read: shutdown flushes them.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandboxWithMerchant, type SandboxWithMerchant } from '../helpers/sandbox-with-merchant.js';
import { s2sBody } from '../helpers/test-sandbox.js';
import { waitFor } from '../helpers/wait-for.js';

const TRACE_ID = '0af7651916cd43dd8448eb211c80319c';
const PARENT_ID = 'b7ad6b7169203331';

interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  attributes: Array<{ key: string; value: Record<string, unknown> }>;
  status?: { code?: number };
}

/** OTLP's span kinds (SPAN_KIND_*). */
const SERVER = 2;
const CLIENT = 3;

/** An attribute's value, whatever its OTLP JSON type. */
const attribute = (span: OtlpSpan, key: string) => {
  const value = span.attributes.find((a) => a.key === key)?.value;
  return value === undefined ? undefined : (Object.values(value)[0] as unknown);
};

/** A collector's traces endpoint: every span posted to POST /v1/traces as OTLP JSON. */
async function startCollector() {
  const spans: OtlpSpan[] = [];
  const contentTypes: string[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      if (req.method !== 'POST' || req.url !== '/v1/traces') return void res.writeHead(404).end();
      contentTypes.push(String(req.headers['content-type']));
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as {
        resourceSpans: Array<{ scopeSpans: Array<{ spans: OtlpSpan[] }> }>;
      };
      for (const r of body.resourceSpans) for (const s of r.scopeSpans) spans.push(...s.spans);
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    spans,
    contentTypes,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

describe('--otlp exports the spans of a 3-D Secure payment and its webhook', () => {
  let collector: Awaited<ReturnType<typeof startCollector>>;
  let env: SandboxWithMerchant;

  beforeAll(async () => {
    collector = await startCollector();
    // The collector's base URL: the sandbox posts to its /v1/traces.
    env = await startSandboxWithMerchant({ flags: { retry: 'none', otlp: collector.url } });
  });
  afterAll(async () => {
    await env.close();
    await collector.close();
  });

  it('the request span in the caller trace, its state changes and the webhook attempt as children', async () => {
    const hook = '/hook/otlp';
    const created = await env.http.post('/api/s2s', s2sBody({ webhook_url: `${env.merchant.url}${hook}` }), {
      traceparent: `00-${TRACE_ID}-${PARENT_ID}-01`,
    });
    expect(created.status).toBe(200);
    const transID = created.json.transID as string;
    const done = await env.http.post(`/_sandbox/transactions/${transID}/authenticate`, { outcome: 'approve' });
    expect(done.status).toBe(200);
    const [webhook] = await waitFor(() => {
      const got = env.merchant.at(hook);
      return got.length > 0 ? got : undefined;
    }, 'the webhook');
    const webhookSpanId = String(webhook!.headers.traceparent).split('-')[2];
    // Closing flushes what the batch has not sent yet.
    await env.close();

    const spans = collector.spans.filter((s) => s.traceId === TRACE_ID);
    expect(collector.contentTypes.every((type) => type.startsWith('application/json'))).toBe(true);
    const request = spans.find((s) => s.kind === SERVER && attribute(s, 'http.route') === '/api/s2s');
    expect(request, `a server span of POST /api/s2s among ${spans.map((s) => s.name).join(', ')}`).toBeDefined();
    expect(request).toMatchObject({ name: 'POST /api/s2s', parentSpanId: PARENT_ID });
    expect(attribute(request!, 'http.request.method')).toBe('POST');
    expect(Number(attribute(request!, 'http.response.status_code'))).toBe(200);
    expect(attribute(request!, 'paysandbox.payment.id')).toBe(transID);

    // The approval, made by the control API (no traceparent), joins the payment's trace.
    const states = spans.filter((s) => s.name.startsWith('state ') && attribute(s, 'paysandbox.object.id') === transID);
    expect(states.length, 'a span per state change').toBeGreaterThan(0);
    for (const state of states) expect([request!.spanId, PARENT_ID]).toContain(state.parentSpanId);

    const attempt = spans.find((s) => s.kind === CLIENT);
    expect(attempt, 'the webhook attempt as a client span').toBeDefined();
    expect(attempt!.spanId).toBe(webhookSpanId);
    expect(attempt!.parentSpanId).toBe(states.at(-1)!.parentSpanId);
    expect(Number(attribute(attempt!, 'http.response.status_code'))).toBe(200);
    expect(attribute(attempt!, 'url.full')).toBe(`${env.merchant.url}${hook}`);
  });

  it('a request with no traceparent is a span of a trace of its own, and its webhook joins that trace', async () => {
    const fresh = await startSandboxWithMerchant({ flags: { retry: 'none', otlp: `${collector.url}/v1/traces` } });
    const hook = '/hook/own-trace';
    const created = await fresh.http.post('/api/s2s', s2sBody({ ccno: '4242424242424242', webhook_url: `${fresh.merchant.url}${hook}` }));
    expect(created.status).toBe(200);
    const [webhook] = await waitFor(() => {
      const got = fresh.merchant.at(hook);
      return got.length > 0 ? got : undefined;
    }, 'the webhook');
    await fresh.close();
    const [, traceId, spanId] = String(webhook!.headers.traceparent).split('-');
    const attempt = collector.spans.find((s) => s.spanId === spanId);
    expect(attempt).toMatchObject({ traceId, kind: CLIENT });
    const request = collector.spans.find((s) => s.spanId === attempt!.parentSpanId);
    expect(request).toMatchObject({ traceId, kind: SERVER, name: 'POST /api/s2s' });
    expect(request!.parentSpanId ?? '').toBe('');
  });
});
