// Where the webhook sender runs (src/webhooks/delivery/senders.ts), from the TypeScript source: with
// the thread entry this run bundled (test/setup/sender-thread.ts) a sandbox sends from a thread,
// as the package does; a thread that dies three times in a minute gives way to the main thread for
// good, and the webhooks keep coming; without a compiled entry (the source alone) the sandbox
// sends from the main thread from the start.
import type { Worker } from 'node:worker_threads';
import { afterEach, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { silentLogger, type Logger } from '../../src/runtime/logger.js';
import { startServer, type BuildOptions, type RunningServer } from '../../src/server/start-server.js';
import { startFakeMerchant } from '../helpers/fake-merchant.js';
import { s2sBody, senderThread } from '../helpers/test-sandbox.js';
import { waitFor } from '../helpers/wait-for.js';

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!();
});

/** A sandbox whose error lines are kept. */
async function start(options: Pick<BuildOptions, 'senderEntry'>) {
  const errors: string[] = [];
  const logger: Logger = { ...silentLogger, error: (line) => void errors.push(line) };
  const sandbox = await startServer(loadConfig({ port: 0, db: ':memory:', quiet: true, retry: 'dev' }, {}), { logger, ...options });
  cleanups.push(sandbox.close);
  return { sandbox, errors };
}

/** POSTs `count` frictionless payments whose webhooks go to `webhookUrl`. */
async function pay(sandbox: RunningServer, count: number, webhookUrl: string): Promise<void> {
  for (let i = 0; i < count; i++) {
    const res = await fetch(`${sandbox.url}/api/s2s`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(s2sBody({ ccno: '4242424242424242', webhook_url: webhookUrl })),
    });
    expect(res.status).toBe(200);
  }
}

/** The running sender thread of a sandbox. */
const threadOf = (sandbox: RunningServer) => (sandbox.worker.activeSender as unknown as { worker: Worker }).worker;

/** The distinct event ids a receiver got. */
const eventIds = (received: Array<{ headers: Record<string, unknown> }>) =>
  new Set(received.map((r) => String(r.headers['x-sandbox-event-id'])));

it('a sender thread ended three times in a minute gives way to the main thread, says so in its third line, and every webhook still arrives', async () => {
  let hold = true;
  const receiver = await startFakeMerchant({
    answer: () => waitFor(() => !hold || undefined, 'the receiver to answer', 20_000).then(() => 200),
  });
  cleanups.push(receiver.close);
  const { sandbox, errors } = await start(senderThread());
  const hook = `${receiver.url}/hook`;

  await pay(sandbox, 1, hook);
  await waitFor(() => receiver.received.length === 1 || undefined, 'the first attempt in flight');
  expect(sandbox.worker.activeSender.mode).toBe('thread');
  // Two deaths: each thread is started again and its attempt in flight sent again by the next one.
  for (const death of [1, 2]) {
    const thread = threadOf(sandbox);
    await thread.terminate();
    await waitFor(() => errors.length === death || undefined, `death ${death} logged`);
    await waitFor(() => (threadOf(sandbox) !== thread && receiver.received.length === death + 1) || undefined, 'the attempt sent again');
  }
  expect(errors).toEqual([
    'webhook sender thread stopped (exit code 1); started again; 1 attempt in flight is sent again',
    'webhook sender thread stopped (exit code 1); started again; 1 attempt in flight is sent again',
  ]);
  expect(sandbox.worker.activeSender.mode).toBe('thread');

  // A second attempt in flight, then the third death within the minute: no fourth thread.
  await pay(sandbox, 1, hook);
  await waitFor(() => receiver.received.length === 4 || undefined, 'two attempts in flight');
  const third = threadOf(sandbox);
  await third.terminate();
  await waitFor(() => errors.length === 3 || undefined, 'the third death logged');
  expect(errors[2]).toBe(
    'webhook sender thread stopped (exit code 1), 3 times in a minute; webhooks are sent from the main thread from now on; 2 attempts in flight are sent again',
  );
  expect(sandbox.worker.activeSender.mode).toBe('in-process');
  expect(threadOf(sandbox)).toBe(third);

  // The lost attempts go out from the main thread, and so does a new payment's webhook.
  hold = false;
  await pay(sandbox, 1, hook);
  await waitFor(() => (eventIds(receiver.received).size === 3 && sandbox.worker.busy === 0) || undefined, 'every webhook', 20_000);
  expect(sandbox.db.prepare('SELECT status FROM deliveries').pluck().all()).toEqual(['succeeded', 'succeeded', 'succeeded']);
  expect(errors).toHaveLength(3);
  expect(threadOf(sandbox)).toBe(third);
});

it('from the TypeScript source without a compiled thread entry, webhooks are sent from the main thread', async () => {
  const receiver = await startFakeMerchant();
  cleanups.push(receiver.close);
  const { sandbox, errors } = await start({});
  await pay(sandbox, 2, `${receiver.url}/hook`);
  await waitFor(() => eventIds(receiver.received).size === 2 || undefined, 'both webhooks');
  expect(sandbox.worker.activeSender.mode).toBe('in-process');
  expect(errors).toEqual([]);
});
