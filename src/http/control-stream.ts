// GET /_sandbox/stream: the activity bus as Server-Sent Events (event: <kind>, data: JSON), for
// `sandbox listen`, the dashboard and scripts. A comment line every 15 s keeps proxies and idle
// timeouts from closing the stream; the subscription ends when the client goes away.
import { Hono } from 'hono';
import { streamSSE } from 'hono/streaming';
import type { Activity } from '../services/activity.js';
import type { AppDeps, AppEnv } from './app.js';

/** How often an idle stream sends a heartbeat comment. */
export const HEARTBEAT_MS = 15_000;

/** The SSE route; `heartbeatMs` is shorter in tests. */
export function controlStreamRoutes(deps: AppDeps, options: { heartbeatMs?: number } = {}) {
  const app = new Hono<AppEnv>();
  const { activity } = deps.services.deps;

  app.get('/stream', (c) =>
    streamSSE(c, async (stream) => {
      const queue: Activity[] = [];
      let wakeUp: (() => void) | undefined;
      let closed = false;
      const unsubscribe = activity.subscribe((item) => {
        queue.push(item);
        wakeUp?.();
      });
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
          while (queue.length > 0 && !closed) {
            const item = queue.shift()!;
            await stream.writeSSE({ event: item.kind, id: String(++sequence), data: JSON.stringify({ kind: item.kind, at: new Date(item.at).toISOString(), ...item.data }) });
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
        unsubscribe();
      }
    }),
  );
  return app;
}
