// A handler that asks the sandbox why its check failed while it still holds the webhook's answer
// (as `sandbox receive` and a handler that verifies through POST /_sandbox/signatures/diagnose do):
// the attempt is in flight, not recorded yet, and the diagnosis must judge the request that was
// sent, not say the sandbox has not sent it.
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Diagnosis } from '../helpers/diagnose.js';
import { startSandboxWithMerchant, type SandboxWithMerchant } from '../helpers/sandbox-with-merchant.js';
import { CREDS, s2sBody } from '../helpers/test-sandbox.js';
import { waitFor } from '../helpers/wait-for.js';

let env: SandboxWithMerchant;
/** The diagnoses the handler got, with the secret it asked with, while it held its answer. */
const asked: Array<{ secret: string; diagnosis: Diagnosis }> = [];

beforeAll(async () => {
  env = await startSandboxWithMerchant({
    merchant: {
      answer: async (request) => {
        for (const secret of [CREDS.secret, 'whsec_not_the_merchants']) {
          const res = await env.http.post('/_sandbox/signatures/diagnose', { headers: request.headers, body: request.body, secret });
          asked.push({ secret, diagnosis: res.json });
        }
        return 200;
      },
    },
  });
});
afterAll(() => env.close());

it('diagnoses the attempt in flight as sent: valid with the merchant secret, other_secret with another', async () => {
  const { json } = await env.http.post('/api/s2s', s2sBody({ ccno: '4242424242424242', webhook_url: `${env.merchant.url}/held` }));
  expect(json.order_status).toBe('25');
  await waitFor(() => asked.length >= 2, 'the handler to ask about its webhook');
  const [right, wrong] = asked;
  expect(right?.diagnosis).toMatchObject({ valid: true, cause: 'valid' });
  expect(wrong?.diagnosis).toMatchObject({ valid: false });
  expect(wrong?.diagnosis.cause).not.toBe('unknown');
  expect(wrong?.diagnosis.message).not.toContain('has not sent');
  expect(wrong?.diagnosis.message).toContain("merchant mer_sandbox's webhook secret");
});
