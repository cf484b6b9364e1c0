// The front thread validates the busiest creates' bodies (src/http/prevalidation.ts); the route then
// takes the input it validated. What that could break: an answer that differs from the one the route
// gives when it reads and validates the body itself. Each body here, valid or not, is answered the
// same both ways (ids and times aside), and every body that fails a check goes over unvalidated.
import { expect, it } from 'vitest';
import { prevalidate } from '../../src/http/prevalidation.js';
import { AUTH, paymentBody } from '../helpers/payments-api.js';
import { createTestSandbox, s2sBody } from '../helpers/test-sandbox.js';

const deep = (levels: number): unknown => (levels === 0 ? 1 : { a: deep(levels - 1) });

/** Bodies for each route: valid ones and each way readJson or the schema refuses one. */
const CASES: Array<[string, string, string]> = [
  ['/v1/payments', 'application/json', JSON.stringify(paymentBody())],
  ['/v1/payments', 'application/json; charset=utf-8', JSON.stringify(paymentBody({ capture: false, reference: 'r-1' }))],
  ['/v1/payments', 'application/json', JSON.stringify(paymentBody({ amount: -1 }))],
  ['/v1/payments', 'application/json', JSON.stringify(paymentBody({ unknown_field: 1 }))],
  ['/v1/payments', 'text/plain', JSON.stringify(paymentBody())],
  ['/v1/payments', 'application/json', '{"amount": 10'],
  ['/v1/payments', 'application/json', '[1, 2]'],
  ['/v1/payments', 'application/json', '   '],
  ['/v1/payments', 'application/json', JSON.stringify({ ...paymentBody(), metadata: deep(40) })],
  ['/v1/payments', 'application/json', JSON.stringify(paymentBody({ reference: 'x' })).replace('"x"', '"\\ud800"')],
  ['/api/s2s', 'application/json', JSON.stringify(s2sBody({ reference: 'pre-1', ccno: '4242424242424242' }))],
  ['/api/s2s', 'application/json', JSON.stringify(s2sBody({ reference: 'pre-2', bill_amt: 10.5, terNO: '1001' }))],
  ['/api/s2s', 'application/json', JSON.stringify(s2sBody({ reference: 'pre-3', bill_currency: 'XXXX' }))],
  ['/api/s2s', 'application/json', JSON.stringify(s2sBody({ reference: 'pre-4', webhook_url: 'ftp://x' }))],
];

/** An answer with its request id, ids and times made comparable. */
async function shape(res: Response) {
  const text = (await res.text())
    .replace(/req_[A-Za-z0-9]+/g, 'req')
    .replace(/"(pay|evt|whd)_[A-Za-z0-9]+"/g, '"$1"')
    .replace(/\d{4}-\d\d-\d\d[T ][\d:.]+Z?/g, 'time')
    .replace(/"transID":"\d+"/, '"transID"')
    .replace(/\/[A-Za-z0-9_-]{40,}/g, '/token')
    .replace(/"authdata":"[^"]*"/, '"authdata"');
  return `${res.status} ${text}`;
}

it.each(CASES)('%s %s %s: the same answer with the front thread’s validation as without', async (path, type, body) => {
  const headers = { ...(path.startsWith('/v1/') ? AUTH : {}), 'content-type': type };
  const validated = prevalidate('POST', path, headers, body);
  const answers: string[] = [];
  for (const front of [false, true]) {
    const sb = createTestSandbox();
    try {
      const env = front ? { incoming: { front: { text: body, validated }, socket: { remoteAddress: '127.0.0.1' } } } : undefined;
      answers.push(await shape(await sb.app.request(path, { method: 'POST', headers, body }, env)));
    } finally {
      sb.close();
    }
  }
  expect(answers[1]).toBe(answers[0]);
  // Validated exactly when the route accepts the body.
  expect(validated !== null).toBe(answers[0]!.startsWith('200 '));
});

it('validates only the two routes it knows, by exact path and method', () => {
  const headers = { 'content-type': 'application/json' };
  const body = JSON.stringify(paymentBody());
  expect(prevalidate('POST', '/v1/payments', headers, body)).not.toBeNull();
  expect(prevalidate('POST', '/v1/payments?x=1', headers, body)).not.toBeNull();
  expect(prevalidate('PUT', '/v1/payments', headers, body)).toBeNull();
  expect(prevalidate('POST', '/v1/payments/', headers, body)).toBeNull();
  expect(prevalidate('POST', '/v1/refunds', headers, body)).toBeNull();
});
