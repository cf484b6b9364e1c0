// Polls a condition with a deadline instead of sleeping a fixed time.

/** Resolves with the first truthy value of `check`, or rejects after `timeoutMs` with `what`. */
export async function waitFor<T>(check: () => T | Promise<T>, what: string, timeoutMs = 5000, everyMs = 10): Promise<NonNullable<T>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value as NonNullable<T>;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
}
