// startSandbox()'s frontThread option, on the built package (the front thread runs its compiled
// entry): HTTP stays on the suite's own thread by default and with auto or off, and `on` runs one
// thread more, which close() ends. Threads are counted in /proc (Linux).
import { existsSync, readdirSync } from 'node:fs';
import { expect, it } from 'vitest';
import type * as Library from '../../src/index.js';
import { waitFor } from '../helpers/wait-for.js';

const DIST = new URL('../../dist/index.js', import.meta.url).href;
const threads = () => readdirSync('/proc/self/task').length;

it.runIf(existsSync('/proc/self/task'))(
  "frontThread: 'on' runs HTTP on a thread of its own; by default the suite's thread serves it",
  async () => {
    const { startSandbox } = (await import(DIST)) as typeof Library;
    const plain = await startSandbox();
    try {
      expect((await fetch(`${plain.url}/_sandbox/health`)).status).toBe(200);
      const before = threads();
      const front = await startSandbox({ frontThread: 'on' });
      try {
        expect((await fetch(`${front.url}/_sandbox/health`)).status).toBe(200);
        await waitFor(() => threads() === before + 1 || undefined, 'the front thread', 10_000);
      } finally {
        await front.close();
      }
      await waitFor(() => threads() === before || undefined, 'the front thread ended by close()', 10_000);
      const off = await startSandbox({ frontThread: 'auto' });
      try {
        expect((await fetch(`${off.url}/_sandbox/health`)).status).toBe(200);
        expect(threads()).toBe(before);
      } finally {
        await off.close();
      }
    } finally {
      await plain.close();
    }
  },
);
