// A fake merchant webhook receiver on 127.0.0.1:<port 0>: records every request, answers a
// scripted list of statuses (then 200), and can be stopped and restarted on the same port.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { verifySignature } from '../../src/crypto/signature.js';

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
export async function startFakeMerchant(options: { statuses?: number[]; fallback?: number; port?: number; answer?: (request: ReceivedWebhook) => number | Promise<number>; endless?: boolean } = {}) {
  const received: ReceivedWebhook[] = [];
  const statuses = [...(options.statuses ?? [])];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', async () => {
      const request = { method: req.method ?? '', path: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks).toString('utf8'), at: Date.now() };
      received.push(request);
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
