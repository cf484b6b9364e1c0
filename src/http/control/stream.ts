// GET /_sandbox/stream: the activity bus as Server-Sent Events (event: <kind>, data: JSON), for
// `sandbox listen`, the dashboard and scripts. A comment line every 15 s keeps proxies and idle
// timeouts from closing the stream; the subscription ends when the client goes away, or when it
// falls MAX_PENDING_EVENTS behind (it stopped reading): then its connection is closed.
import type { ServerResponse } from 'node:http';
import { Hono } from 'hono';
import { streamSSE } from 'hono/streaming';
import type { AppDeps, AppEnv } from '../app-env.js';
import { iso } from '../../views/time.js';
import type { OpenApiRoute } from '../openapi/route.js';
import { controlRoute } from './control-route.js';

/** How often an idle stream sends a heartbeat comment. */
export const HEARTBEAT_MS = 15_000;

/**
 * Events one stream may have waiting once the socket's buffers are full (the client stopped
 * reading); one more and it is dropped. About 1 MB of delivery events; far above any burst a
 * reading client sees, since each event is written as soon as the socket takes it.
 */
export const MAX_PENDING_EVENTS = 1000;

/** The SSE route; `heartbeatMs` is shorter in tests. */
export function controlStreamRoutes(deps: AppDeps, options: { heartbeatMs?: number } = {}) {
  const app = new Hono<AppEnv>();
  const { activity } = deps.services;

  app.get('/stream', (c) =>
    streamSSE(c, async (stream) => {
      let wakeUp: (() => void) | undefined;
      let closed = false;
      const subscription = activity.subscribeBounded(
        MAX_PENDING_EVENTS,
        () => wakeUp?.(),
        (pending) => {
          deps.logger.info(`live stream dropped: the client stopped reading and fell ${pending} events behind; its connection is closed`);
          closed = true;
          wakeUp?.();
          // Aborting ends the pending write; the socket still holds what the client never read, so it goes too.
          stream.abort();
          (c.env as { outgoing?: ServerResponse } | undefined)?.outgoing?.destroy();
        },
      );
      stream.onAbort(() => {
        closed = true;
        wakeUp?.();
      });
      const heartbeat = setInterval(() => void stream.write(': heartbeat\n\n').catch(() => {}), options.heartbeatMs ?? HEARTBEAT_MS);
      let sequence = 0;
      try {
        // Sent at once so the client knows it is subscribed before anything happens.
        await stream.write(': connected\n\n');
        while (!closed) {
          for (let item = subscription.take(); item && !closed; item = subscription.take()) {
            await stream.writeSSE({
              event: item.kind,
              id: String(++sequence),
              data: JSON.stringify({ kind: item.kind, at: iso(item.at), ...item.data }),
            });
          }
          if (closed) break;
          await new Promise<void>((resolve) => (wakeUp = resolve));
          wakeUp = undefined;
        }
      } catch (err) {
        // A write racing the client's disconnect fails; that is the normal end of a stream.
        if (!closed) throw err;
      } finally {
        clearInterval(heartbeat);
        subscription.close();
      }
    }),
  );
  return app;
}

/** The routes of this module, for /openapi.json. */
export const streamOpenApi: OpenApiRoute[] = [
  controlRoute(
    'get',
    '/stream',
    'Server-sent events of sandbox activity (requests, events, delivery attempts)',
    'a text/event-stream that stays open; each item is `event: <kind>` with JSON data {kind, at, ...}: event.created carries {id, event, resource_id}, naming the event `event` as every control event does',
    { responseType: 'text/event-stream' },
  ),
];
