// Idempotency-Key over a real socket: there the answers are @hono/node-server's lightweight
// Responses, whose body the middleware stores without consuming it, so the first answer must
// still reach the client whole and the replay must carry the same bytes.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningServer } from '../../src/server/start-server.js';
import { api, type HttpClient } from '../helpers/http.js';
import { AUTH } from '../helpers/payments-api.js';
import { startTestServer } from '../helpers/test-sandbox.js';

let sandbox: RunningServer;
let http: HttpClient;
beforeAll(async () => {
  sandbox = await startTestServer();
  http = api(sandbox.url);
});
afterAll(() => sandbox.close());

const PAYMENT = { amount: 1050, currency: 'EUR', method: 'card', routing: 'smart', customer: { country: 'NL' } };

describe('Idempotency-Key on a running sandbox', () => {
  it('sends the first answer whole and replays the same bytes, creating one payment', async () => {
    const headers = { ...AUTH, 'idempotency-key': 'e2e-pay-1' };
    const first = await http.post('/v1/payments', PAYMENT, headers);
    const again = await http.post('/v1/payments', PAYMENT, headers);
    expect(first.status).toBe(200);
    expect(first.json.id).toMatch(/^pay_/);
    expect(first.headers.get('content-length')).toBe(String(Buffer.byteLength(first.text)));
    expect(again.status).toBe(200);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.text).toBe(first.text);
    expect(again.headers.get('content-type')).toBe(first.headers.get('content-type'));
    expect((await http.get('/v1/payments?limit=100', AUTH)).json.data).toHaveLength(1);
  });

  it('replays a 4xx answer with the same body', async () => {
    const headers = { ...AUTH, 'idempotency-key': 'e2e-bad-1' };
    const first = await http.post('/v1/payments', { ...PAYMENT, amount: -1 }, headers);
    const again = await http.post('/v1/payments', { ...PAYMENT, amount: -1 }, headers);
    expect(first.status).toBe(400);
    expect(first.json.error.param).toBe('amount');
    expect(again.status).toBe(400);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.text).toBe(first.text);
  });
});
