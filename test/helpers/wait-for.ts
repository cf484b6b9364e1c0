// Polls a condition with a deadline instead of sleeping a fixed time.

/** What a truthy check returns: `T` without the falsy values that keep the poll going. */
export type Truthy<T> = Exclude<T, false | null | undefined | 0 | ''>;

/**
 * Resolves with the first truthy value of `check`, or rejects after `timeoutMs` with `what`. The
 * deadline only bounds a failure: a passing wait ends as soon as the check holds, so it is generous
 * (a sandbox's first webhook starts its sender thread, which takes seconds on a machine whose
 * cores several test runs share).
 */
export async function waitFor<T>(check: () => T | Promise<T>, what: string, timeoutMs = 30_000, everyMs = 10): Promise<Truthy<T>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value as Truthy<T>;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
}
