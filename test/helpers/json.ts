// The JSON a test reads from an answer, a CLI's output or a file.

/**
 * A parsed JSON body, untyped on purpose: every answer's shape is checked against /openapi.json
 * (conformance.ts) and a test's expect() asserts the values it reads, so a static type would repeat them.
 */
// biome-ignore lint/suspicious/noExplicitAny: the suite's one untyped JSON, named so that a test says what it holds.
export type Json = any;
