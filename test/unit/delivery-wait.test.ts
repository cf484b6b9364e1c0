// The delivery wait of `sandbox wait` and the MCP tool wait_for_delivery, against a control API
// whose deliveries change between two of its requests (as a webhook's attempt ends meanwhile).
import { expect, it } from 'vitest';
import type { ControlClient } from '../../src/client/control-client.js';
import { waitForDelivery } from '../../src/client/delivery-wait.js';
import type { DeliveryView } from '../../src/views/delivery.js';

const delivery = (status: DeliveryView['status']) => ({ id: 'whd_1', event: 'payment.captured', status }) as DeliveryView;

/** A control API whose one delivery is pending until the `after`-th request, succeeded from then on. */
function succeedsAfter(after: number): ControlClient {
  let requests = 0;
  const get = async (_path: string, query: { status?: string }) => {
    requests += 1;
    const now = delivery(requests > after ? 'succeeded' : 'pending');
    return { object: 'list', data: query.status === undefined || query.status === now.status ? [now] : [], has_more: false };
  };
  return { get } as unknown as ControlClient;
}

it('finds a delivery that succeeded while it looked for a pending one, instead of calling it failed for good', async () => {
  // The first look (succeeded) sees it pending, the second (pending) sees it succeeded.
  const outcome = await waitForDelivery(succeedsAfter(1), { event: 'payment.captured', status: 'succeeded' }, Date.now() + 5000);
  expect(outcome).toEqual({ found: delivery('succeeded') });
});

it('says failed for good when the matching deliveries failed and none is pending', async () => {
  const failed = {
    get: async (_path: string, query: { status?: string }) => ({
      data: query.status === undefined || query.status === 'failed' ? [delivery('failed')] : [],
    }),
  };
  const outcome = await waitForDelivery(
    failed as unknown as ControlClient,
    { event: 'payment.captured', status: 'succeeded' },
    Date.now() + 5000,
  );
  expect(outcome).toEqual({ found: undefined, failedForGood: true });
});
