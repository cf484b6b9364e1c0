// Timed jobs that fall due together run in small batches with the event loop free in between:
// the bench saw 4 600 refund completions falling due at once keep the server from answering
// anything for over a second. A clock advance still runs every due job at once.
import { afterEach, expect, it } from 'vitest';
import { createTestSandbox, type TestSandbox } from '../helpers/test-sandbox.js';
import { waitFor } from '../helpers/wait-for.js';

// The job kinds these tests register, known to the runner's types like the sandbox's own.
declare module '../../src/services/job-kinds.js' {
  interface JobPayloads {
    'test.batch': Record<string, never>;
  }
}

let sandbox: TestSandbox | undefined;
afterEach(() => {
  sandbox?.services.jobs.stop();
  sandbox?.close();
});

it('runs 100 jobs due at the same time in several turns of the event loop, all of them', async () => {
  sandbox = createTestSandbox();
  const { services, clock } = sandbox;
  let turn = 0;
  let ticking = true;
  const tick = () => {
    turn += 1;
    if (ticking) setImmediate(tick);
  };
  tick();
  const turnsSeen: number[] = [];
  // A batch is one synchronous run of jobs: a microtask queued by its first job ends it.
  let batches = 0;
  let inBatch = false;
  services.jobs.register('test.batch', () => {
    turnsSeen.push(turn);
    if (!inBatch) {
      batches += 1;
      inBatch = true;
      queueMicrotask(() => (inBatch = false));
    }
  });
  services.jobs.start();
  sandbox.store.tx(() => {
    for (let i = 0; i < 100; i++) services.jobs.schedule('test.batch', `subject_${i}`, clock.now());
  });
  await waitFor(() => turnsSeen.length === 100, 'all 100 jobs to run');
  ticking = false;
  // 100 jobs in batches of 20 at most. A loaded machine can fire two batches' timers in one pass of
  // the loop's timer phase (a CI run saw 4 loop turns for 5 batches), so the loop turns only need
  // to show the loop came round between them.
  expect(batches).toBeGreaterThanOrEqual(5);
  expect(new Set(turnsSeen).size).toBeGreaterThanOrEqual(2);
  expect(sandbox.store.jobs.nextDueAt()).toBeNull();
});

it('runs every due job at once on a clock advance (the control API answers with the count)', async () => {
  sandbox = createTestSandbox();
  const { services, clock } = sandbox;
  let ran = 0;
  services.jobs.register('test.batch', () => {
    ran += 1;
  });
  sandbox.store.tx(() => {
    for (let i = 0; i < 60; i++) services.jobs.schedule('test.batch', `subject_${i}`, clock.now() + 60_000);
  });
  const res = await sandbox.request('POST', '/_sandbox/clock/advance', { duration: '2m' });
  expect(res.status).toBe(200);
  expect(res.json.jobs_run).toBe(60);
  expect(ran).toBe(60);
});
