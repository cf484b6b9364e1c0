// A clock advance runs every retry that falls due within it, not one per advance: the next attempt
// is scheduled from when the failed one was due, so overdue retries run back to back.
import { expect, it } from 'vitest';
import { useSandboxWithMerchant } from '../helpers/sandbox-with-merchant.js';
import { s2sBody } from '../helpers/test-sandbox.js';
import { waitFor } from '../helpers/wait-for.js';
import type { Json } from '../helpers/json.js';

const env = useSandboxWithMerchant({ flags: { retry: 'realistic' }, merchant: { fallback: 500 } });

it('one clock advance of 2d runs every realistic retry (5s ... 10h) and the delivery fails after 8 attempts', async () => {
  const { http, merchant } = env;
  const res = await http.post('/api/s2s', s2sBody({ ccno: '4242424242424242', webhook_url: `${merchant.url}/hook` }));
  expect(res.status).toBe(200);

  const first = await waitFor(async () => {
    const [d] = (await http.get('/_sandbox/deliveries')).json.data;
    return d && d.attempts === 1 && d.status === 'pending' && d;
  }, 'the first attempt');
  expect(merchant.received).toHaveLength(1);

  expect((await http.post('/_sandbox/clock/advance', { duration: '2d' })).status).toBe(200);
  const done = await waitFor(
    async () => {
      const d = (await http.get(`/_sandbox/deliveries/${first.id}`)).json;
      return d.status === 'failed' && d;
    },
    'the delivery to fail after every retry',
    10_000,
  );
  expect(done.attempts).toBe(8);
  expect(done.attempt_log.map((a: Json) => a.response_status)).toEqual(Array(8).fill(500));
  expect(merchant.received).toHaveLength(8);
});
