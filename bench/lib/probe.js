// Route detection: other features land over time, so each endpoint is probed before it is
// benched. The sandbox answers an unknown route with 404 route_not_found (src/http/app.ts);
// any other answer (even a 400 or 401) means the route exists.
import { request } from './http.js';

/** True when `method path` is a route of the sandbox at `url`. */
export async function routeExists(url, method, path, headers = {}) {
  const res = await request(url + path, { method, headers, body: method === 'GET' ? undefined : {} });
  return !(res.status === 404 && (res.json?.error?.code === 'route_not_found' || res.json === undefined));
}

/** One real request that must answer 2xx before a load run; throws what the sandbox said otherwise. */
export async function expectOk(url, what, options) {
  const res = await request(url + options.path, options);
  if (res.status < 200 || res.status >= 300) {
    const reason = res.json?.error ? `${res.json.error.code}: ${res.json.error.message}` : res.text.slice(0, 200);
    throw new Error(`${what}: the probe request answered ${res.status} (${reason})`);
  }
  return res;
}
