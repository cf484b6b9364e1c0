// A small HTTP client for the bench's own requests (probes, seeding, latency runs): node:http
// with a keep-alive agent, so connection set-up is not counted in per-request timings.
import http from 'node:http';

const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });

/** Sends one request; resolves with status, headers, text and parsed JSON (when it is JSON). */
export function request(url, { method = 'GET', headers = {}, body, timeoutMs = 10_000 } = {}) {
  return new Promise((resolve, reject) => {
    const payload = body === undefined ? undefined : Buffer.from(typeof body === 'string' ? body : JSON.stringify(body));
    const allHeaders = { ...headers };
    if (payload) {
      allHeaders['content-length'] = String(payload.length);
      if (typeof body !== 'string') allHeaders['content-type'] ??= 'application/json';
    }
    const req = http.request(url, { method, headers: allHeaders, agent }, (res) => {
      const chunks = [];
      res.on('data', (chunk) => chunks.push(chunk));
      res.on('error', reject);
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        let json;
        try {
          json = JSON.parse(text);
        } catch {
          json = undefined;
        }
        resolve({ status: res.statusCode, headers: res.headers, text, json });
      });
    });
    req.setTimeout(timeoutMs, () => req.destroy(new Error(`no answer from ${method} ${url} within ${timeoutMs} ms`)));
    req.on('error', reject);
    req.end(payload);
  });
}

/** Runs `task(i)` for i in [0, count) with at most `concurrency` at once; resolves with the results in order. */
export async function pool(count, concurrency, task) {
  const results = new Array(count);
  let next = 0;
  const lanes = Array.from({ length: Math.min(concurrency, count) }, async () => {
    while (next < count) {
      const i = next++;
      results[i] = await task(i);
    }
  });
  await Promise.all(lanes);
  return results;
}

/** Closes the keep-alive sockets so the process can exit. */
export function closeAgent() {
  agent.destroy();
}
