// A fake merchant webhook receiver on 127.0.0.1:<port 0>: records every request, answers a
// scripted list of statuses (then 200), and can be stopped and restarted on the same port. Every
// webhook it receives is checked against the document's `webhooks` (conformance.ts); a body the
// document does not describe fails the test that was running when it arrived.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach } from 'vitest';
import { verifySignature } from '../../src/signatures/signing.js';
import { checkWebhook } from './conformance.js';
import { errorMessage } from '../../src/errors.js';

/** Webhook bodies received since the last test ended that the document does not describe. */
const violations: string[] = [];
afterEach(() => {
  const found = violations.splice(0);
  if (found.length > 0) throw new Error(found.join('\n'));
});

/** Takes the violations found so far (a test that sends a bad body on purpose reads them, so they do not fail it). */
export function takeWebhookViolations(): string[] {
  return violations.splice(0);
}

/** True for a request the sandbox's delivery worker (or a replay, or the audit) sent: it names its delivery. */
function isDelivery(headers: http.IncomingHttpHeaders): boolean {
  // X-Sandbox-Delivery-Id (--header-prefix renames "Sandbox"), or webhook-id in standard mode.
  return Object.keys(headers).some((name) => /^x-.+-delivery-id$/.test(name) || name === 'webhook-id');
}

/** One request the receiver got. */
export interface ReceivedWebhook {
  method: string;
  path: string;
  headers: http.IncomingHttpHeaders;
  body: string;
  at: number;
}

/**
 * Starts a receiver; `statuses` are answered in order, then `fallback` (200); `answer`, when given,
 * decides each status instead (a handler under test). With `endless`, the status goes at once and
 * the body after it never ends (64 KiB at a time, for as long as the client reads).
 */
export async function startFakeMerchant(
  options: {
    statuses?: number[];
    fallback?: number;
    port?: number;
    answer?: (request: ReceivedWebhook) => number | Promise<number>;
    endless?: boolean;
  } = {},
) {
  const received: ReceivedWebhook[] = [];
  const statuses = [...(options.statuses ?? [])];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', async () => {
      const request = {
        method: req.method ?? '',
        path: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
        at: Date.now(),
      };
      received.push(request);
      if (request.method === 'POST' && isDelivery(req.headers)) {
        try {
          checkWebhook(String(req.headers['content-type'] ?? ''), request.body);
        } catch (err) {
          violations.push(errorMessage(err));
        }
      }
      const status = options.answer ? await options.answer(request) : statuses.length ? statuses.shift()! : (options.fallback ?? 200);
      if (res.destroyed) return;
      if (!options.endless) return void res.writeHead(status, { 'content-type': 'text/plain' }).end(status < 300 ? 'ok' : 'nope');
      res.writeHead(status, { 'content-type': 'text/plain' });
      const chunk = Buffer.alloc(64 * 1024, 'x');
      const more = () => {
        while (!res.destroyed && res.write(chunk));
      };
      res.on('drain', more);
      more();
    });
  });
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    port,
    url: `http://127.0.0.1:${port}`,
    received,
    /** Requests to one path. */
    at: (path: string) => received.filter((r) => r.path === path),
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/** The fake merchant type. */
export type FakeMerchant = Awaited<ReturnType<typeof startFakeMerchant>>;

/**
 * A webhook handler written the way docs/webhooks.md says, for startFakeMerchant's `answer`: 400 to a
 * signature that does not verify (and, in timestamped mode, to a timestamp more than 5 minutes off
 * unless checkTimestamp is false), 200 otherwise; an event id seen before is answered 200 and not
 * processed again. `processed` lists the event ids it processed.
 */
export function carefulHandler(mode: 'plain' | 'timestamped', secret: string, options: { checkTimestamp?: boolean } = {}) {
  const seen = new Set<string>();
  const processed: string[] = [];
  const answer = (request: ReceivedWebhook): number => {
    const timestamp = Number(request.headers['x-sandbox-timestamp']);
    if (!verifySignature(request.headers['x-sandbox-signature'] as string | undefined, secret, request.body, mode, timestamp)) return 400;
    if (mode === 'timestamped' && options.checkTimestamp !== false && Math.abs(Date.now() / 1000 - timestamp) > 300) return 400;
    const eventId = String(request.headers['x-sandbox-event-id']);
    if (!seen.has(eventId)) processed.push(eventId);
    seen.add(eventId);
    return 200;
  };
  return { answer, processed };
}
