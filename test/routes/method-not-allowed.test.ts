// A known path asked with a method it does not take answers 405 with an Allow header listing the
// methods it does take (read from the app's own routes) and the standard error body (an HTML page on the customer pages); an unknown
// path stays a 404.
import { afterAll, describe, expect, it } from 'vitest';
import { createTestSandbox } from '../helpers/test-sandbox.js';
import { AUTH } from '../helpers/payments-api.js';

const sandbox = createTestSandbox();
afterAll(() => sandbox.close());

describe('405 for a known path with the wrong method', () => {
  it.each([
    ['DELETE', '/api/s2s', 'POST'],
    ['PUT', '/v1/payments', 'GET, HEAD, POST'],
    ['DELETE', '/v1/payments/pay_123', 'GET, HEAD'],
    ['PATCH', '/v1/payments/pay_123/capture', 'POST'],
    ['POST', '/openapi.json', 'GET, HEAD'],
    ['DELETE', '/_sandbox/clock/advance', 'POST'],
  ])('%s %s answers 405 with Allow: %s', async (method, path, allow) => {
    const res = await sandbox.request(method, path, undefined, AUTH);
    expect(res.status, res.text).toBe(405);
    expect(res.headers.get('allow')?.split(', ').sort()).toEqual(allow.split(', ').sort());
    expect(res.json.error).toMatchObject({ type: 'invalid_request_error', code: 'method_not_allowed' });
    expect(res.json.error.message).toContain(`${path} does not take ${method}`);
    expect(res.json.error.request_id).toMatch(/^req_/);
  });

  // A browser opens the customer pages: their 405 is an HTML page (test/routes/page-errors.test.ts).
  it.each([
    ['DELETE', '/authenticate/tok_unknown', 'GET, HEAD, POST'],
    ['PUT', '/pay/tok_unknown', 'GET, HEAD'],
  ])('%s %s answers a 405 page with Allow: %s', async (method, path, allow) => {
    const res = await sandbox.request(method, path);
    expect(res.status, res.text).toBe(405);
    expect(res.headers.get('allow')?.split(', ').sort()).toEqual(allow.split(', ').sort());
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    expect(res.text).toContain(`${path} does not take ${method}`);
  });

  // The control guard asks writes for JSON, but only on a route that takes the method: a write it
  // would never read is routing's 405 (or 404), not a request for JSON.
  it.each([
    ['POST', '/_sandbox/health', 'GET, HEAD'],
    ['POST', '/_sandbox/transactions/123', 'GET, HEAD'],
    ['PUT', '/_sandbox/clock', 'GET, HEAD'],
    ['DELETE', '/_sandbox/chargebacks/cb_1', 'GET, HEAD'],
  ])('%s %s answers 405 with Allow: %s whatever it carries (no body, a form, text/plain)', async (method, path, allow) => {
    for (const [body, type] of [
      [undefined, ''],
      ['a=b', 'application/x-www-form-urlencoded'],
      ['{}', 'text/plain'],
    ] as const) {
      const res = await sandbox.request(method, path, body, { 'content-type': type });
      expect(res.status, `${type}: ${res.text}`).toBe(405);
      expect(res.headers.get('allow')?.split(', ').sort()).toEqual(allow.split(', ').sort());
      expect(res.json.error.code).toBe('method_not_allowed');
    }
  });

  it('a write to an unknown /_sandbox path is 404 route_not_found, not a request for JSON', async () => {
    const res = await sandbox.request('POST', '/_sandbox/no-such-thing', 'a=b', { 'content-type': 'application/x-www-form-urlencoded' });
    expect(res.status).toBe(404);
    expect(res.json.error.code).toBe('route_not_found');
  });

  it('an unknown path is still 404 route_not_found', async () => {
    const res = await sandbox.request('GET', '/v1/no-such-thing', undefined, AUTH);
    expect(res.status).toBe(404);
    expect(res.headers.get('allow')).toBeNull();
    expect(res.json.error.code).toBe('route_not_found');
  });
});
