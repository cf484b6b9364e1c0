// The merchant's webhook receiver for the bench: 127.0.0.1, port 0, answers 200 at once and
// notes when each request arrived (performance.now() of this process, the load generator's clock).
import http from 'node:http';

/** Starts the receiver; `arrivals` maps a request path to the time its first copy arrived. */
export async function startReceiver() {
  const arrivals = new Map();
  let count = 0;
  let waiters = [];
  const pathWaiters = new Map();
  const server = http.createServer((req, res) => {
    const at = performance.now();
    req.resume();
    req.on('end', () => {
      count += 1;
      if (!arrivals.has(req.url)) arrivals.set(req.url, at);
      res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
      waiters = waiters.filter((w) => !w.check());
      pathWaiters.get(req.url)?.(at);
      pathWaiters.delete(req.url);
    });
  });
  server.keepAliveTimeout = 10_000;
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${server.address().port}`;

  return {
    url,
    arrivals,
    /** Requests received so far (retries and duplicates included). */
    get count() {
      return count;
    },
    /** Resolves with the time the `n`-th request arrived; rejects after `timeoutMs`. */
    waitForCount(n, timeoutMs) {
      return new Promise((resolve, reject) => {
        const waiter = {
          check: () => {
            if (count < n) return false;
            clearTimeout(timer);
            resolve(performance.now());
            return true;
          },
        };
        const timer = setTimeout(() => {
          waiters = waiters.filter((w) => w !== waiter);
          reject(new Error(`the receiver got ${count} of ${n} webhooks within ${timeoutMs} ms`));
        }, timeoutMs);
        if (!waiter.check()) waiters.push(waiter);
      });
    },
    /** Resolves with the arrival time of the first request to `path`; rejects after `timeoutMs`. */
    waitForPath(path, timeoutMs) {
      if (arrivals.has(path)) return Promise.resolve(arrivals.get(path));
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => {
          pathWaiters.delete(path);
          reject(new Error(`no webhook arrived at ${path} within ${timeoutMs} ms`));
        }, timeoutMs);
        pathWaiters.set(path, (at) => {
          clearTimeout(timer);
          resolve(at);
        });
      });
    },
    /** Forgets what arrived (between measurements). */
    reset() {
      arrivals.clear();
      count = 0;
    },
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
