// Schemas built on first use. Every request schema (src/contracts) and answer schema (src/views) is
// a lazySchema(() => ...), called where it is read. Building them when their modules loaded made
// every start, and every test suite's import('paysandbox'), build about 2 900 zod instances before
// the first request, most of them for routes the suite never calls (or, for answer schemas, only
// for GET /openapi.json, the MCP tools' list and tests). Now a start builds the few it uses.
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
