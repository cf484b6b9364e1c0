// Timed jobs under storage faults: a job that fails and then cannot even be marked done (a full
// disk rolls the transaction back), or a timer wake-up whose read fails, is logged and tried again
// a second later. Before, both errors escaped the timer and ended the sandbox process.
import { afterEach, expect, it, vi } from 'vitest';
import { silentLogger } from '../../src/runtime/logger.js';
import { createTestSandbox, type TestSandbox } from '../helpers/test-sandbox.js';
import { waitFor } from '../helpers/wait-for.js';

// The job kinds these tests register, known to the runner's types like the sandbox's own.
declare module '../../src/services/job-kinds.js' {
  interface JobPayloads {
    'test.flaky': Record<string, never>;
    'test.ok': Record<string, never>;
  }
}

let sandbox: TestSandbox;

afterEach(() => {
  sandbox.services.jobs.stop();
  sandbox.close();
  vi.restoreAllMocks();
});

const diskFull = () => Object.assign(new Error('database or disk is full'), { code: 'SQLITE_FULL' });

it('a failing job whose failure cannot be recorded stays due, is logged, and runs again later', () => {
  sandbox = createTestSandbox();
  const errors = vi.spyOn(silentLogger, 'error');
  const runs: string[] = [];
  sandbox.services.jobs.register('test.flaky', (job) => {
    runs.push(job.subjectId);
    throw new Error('the handler broke');
  });
  sandbox.store.tx(() => sandbox.services.jobs.schedule('test.flaky', 'subject-1', sandbox.clock.now()));

  const jobs = sandbox.store.jobs;
  const markDone = jobs.markDone;
  let calls = 0;
  // The first call (inside the job's transaction) works; recording the failure afterwards does not.
  jobs.markDone = (id) =>
    ++calls === 1
      ? markDone(id)
      : (() => {
          throw diskFull();
        })();
  expect(() => sandbox.services.jobs.runDue()).not.toThrow();
  expect(runs).toEqual(['subject-1']);
  expect(errors).toHaveBeenCalledWith('job test.flaky subject-1 failed: the handler broke');
  expect(errors).toHaveBeenCalledWith('job test.flaky subject-1 could not be marked done: database or disk is full; retrying in 1000 ms');

  // The job was not lost: with the disk back it runs again and its failure is recorded this time.
  jobs.markDone = markDone;
  expect(sandbox.services.jobs.runDue()).toBe(0);
  expect(runs).toEqual(['subject-1', 'subject-1']);
  expect(sandbox.services.jobs.runDue()).toBe(0);
  expect(runs).toHaveLength(2);
});

/**
 * A started runner whose `read` of the jobs table fails the first time; schedules a job due now
 * and resolves once it ran, with the errors logged on the way.
 */
async function runAfterOneFailedRead(
  read: 'due' | 'nextDueAt',
  subject: string,
): Promise<{ ran: string[]; reads: number; errors: unknown[][] }> {
  sandbox = createTestSandbox();
  const errors = vi.spyOn(silentLogger, 'error');
  const ran: string[] = [];
  sandbox.services.jobs.register('test.ok', (job) => void ran.push(job.subjectId));
  sandbox.services.jobs.start();
  const jobs = sandbox.store.jobs as unknown as Record<typeof read, (...args: unknown[]) => unknown>;
  const real = jobs[read];
  let reads = 0;
  jobs[read] = (...args) => {
    if (reads++ === 0) throw diskFull();
    return real(...args);
  };
  sandbox.store.tx(() => sandbox.services.jobs.schedule('test.ok', subject, sandbox.clock.now()));
  await waitFor(() => ran.length > 0, `the job to run after the failed ${read} read`, 5000);
  return { ran, reads, errors: errors.mock.calls };
}

it('a timer wake-up whose read fails keeps the process alive and runs the job on the next wake-up', async () => {
  // Due now: the runner's timer wakes on the next turn, meets the fault, and tries again a second later.
  const { ran, reads, errors } = await runAfterOneFailedRead('due', 'subject-2');
  expect(ran).toEqual(['subject-2']);
  expect(reads).toBeGreaterThanOrEqual(2);
  expect(errors).toContainEqual(['timed jobs could not run: database or disk is full; retrying in 1000 ms']);
});

it('a failed read of the next due time after scheduling is logged and the job still runs', async () => {
  // schedule() re-arms the timer from a microtask; that read fails once.
  const { ran, errors } = await runAfterOneFailedRead('nextDueAt', 'subject-3');
  expect(ran).toEqual(['subject-3']);
  expect(errors).toContainEqual(['timed jobs could not read the next due time: database or disk is full; retrying in 1000 ms']);
});
