// A clock advance runs every retry that falls due within it, not one per advance: the next attempt
// is scheduled from when the failed one was due, so overdue retries run back to back.
import { afterEach, expect, it } from 'vitest';
import type { RunningServer } from '../../src/server/start-server.js';
import { startFakeMerchant, type FakeMerchant } from '../helpers/fake-merchant.js';
import { s2sBody, startTestServer } from '../helpers/test-sandbox.js';
import { waitFor } from '../helpers/wait-for.js';

let sandbox: RunningServer | undefined;
let merchant: FakeMerchant | undefined;

afterEach(async () => {
  await sandbox?.close();
  await merchant?.close();
  sandbox = merchant = undefined;
});

async function control(path: string, body?: unknown) {
  const res = await fetch(`${sandbox!.url}/_sandbox${path}`, body === undefined ? {} : { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  return { status: res.status, json: (await res.json()) as any };
}

it('one clock advance of 2d runs every realistic retry (5s ... 10h) and the delivery fails after 8 attempts', async () => {
  merchant = await startFakeMerchant({ fallback: 500 });
  sandbox = await startTestServer({ retry: 'realistic' });
  const res = await fetch(`${sandbox.url}/api/s2s`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(s2sBody({ ccno: '4242424242424242', webhook_url: `${merchant.url}/hook` })),
  });
  expect(res.status).toBe(200);

  const first = await waitFor(async () => {
    const [d] = (await control('/deliveries')).json.data;
    return d && d.attempts === 1 && d.status === 'pending' && d;
  }, 'the first attempt');
  expect(merchant.received).toHaveLength(1);

  expect((await control('/clock/advance', { duration: '2d' })).status).toBe(200);
  const done = await waitFor(async () => {
    const d = (await control(`/deliveries/${first.id}`)).json;
    return d.status === 'failed' && d;
  }, 'the delivery to fail after every retry', 10_000);
  expect(done.attempts).toBe(8);
  expect(done.attempt_log.map((a: any) => a.response_status)).toEqual(Array(8).fill(500));
  expect(merchant.received).toHaveLength(8);
});
