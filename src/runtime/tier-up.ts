// How soon V8 optimizes the sandbox's code. A sequential test suite sends one request at a time, a
// few hundred a second, and at that rate V8's default budget (a function is optimized after about
// 200 KB of its bytecode has run, three ticks of `--interrupt-budget=67584`) leaves most of a
// create's code in the interpreter and the baseline compiler for thousands of requests: a lone
// create took 1.4-1.7 ms at the median where the same code, optimized, takes under 1.1
// (bench/method.md, "A lone request and V8's tier-up"). A sixteenth of the budget optimizes it
// within the first few hundred requests; under load it changes nothing measurable (the
// optimized code is the same, reached sooner).
import v8 from 'node:v8';

/** A sixteenth of V8's default budget: 2112 did no better, 1056 worse (code optimized before its feedback settles). */
export const INTERRUPT_BUDGET = 4224;

/**
 * The V8 flag `sandbox start` sets once it listens, or undefined when the process was started with
 * an interrupt budget of its own (`node --interrupt-budget=... bin/sandbox.js start`), which wins.
 */
export function tierUpFlag(execArgv: readonly string[]): string | undefined {
  const own = execArgv.some((arg) => /^--interrupt[-_]budget(=|$)/.test(arg));
  return own ? undefined : `--interrupt-budget=${INTERRUPT_BUDGET}`;
}

/**
 * Sets the flag for the rest of the process's life, on every thread. Called after the start has
 * written its code cache: V8 checks a cache against the flags it was made under, and the next start
 * loads its cache before this runs. Functions pick the budget up at their next tick, so code
 * compiled during the start is covered too. Only `sandbox start` calls it: the library runs inside
 * a test suite's process, whose V8 is its own.
 */
export function tierUpSooner(execArgv: readonly string[] = process.execArgv): void {
  const flag = tierUpFlag(execArgv);
  if (flag) v8.setFlagsFromString(flag);
}
