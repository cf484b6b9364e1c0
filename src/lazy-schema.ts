// Schemas built on first use. The answer schemas (src/views) describe what the sandbox sends; only
// GET /openapi.json, the MCP tools' list and tests read them, so building them when a module loads
// made every start, and every test suite's import('paysandbox'), build about 900 zod instances it
// never reads (28 ms of a 204 ms library start on this machine, bench/method.md).
import type * as z from 'zod';

/** A schema's builder, run once on the first call; every later call answers the same instance. */
export type LazySchema<T extends z.ZodType = z.ZodType> = () => T;

/** Wraps `build` so that the schema is built on the first call, once. */
export function lazySchema<T extends z.ZodType>(build: () => T): LazySchema<T> {
  let built: T | undefined;
  return () => {
    built ??= build();
    return built;
  };
}
