// The examples of GET /openapi.json: real requests and answers of a test sandbox, recorded into
// fixtures/openapi-examples.json by test/contract/openapi-examples-recorder.ts (every operation that
// takes or answers JSON, every form, one event of each name as delivered, one error), so `prism
// mock` serves realistic answers and example-driven testers have something to send.
// test/contract/openapi-examples.test.ts validates each against its schema.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { CODE_DIR } from '../../code-dir.js';

/** The sandbox address the examples were recorded at; the document puts its own in its place. */
export const EXAMPLES_BASE_URL = 'http://127.0.0.1:4010';

/** The fixture: per operation ("post /v1/payments") its request body and success answer, per webhook its body, and an error. */
export interface OpenApiExamples {
  base_url: string;
  operations: Record<string, { request?: unknown; response?: unknown }>;
  webhooks: Record<string, unknown>;
  error: unknown;
}

/** Where the fixture lives, in the source tree and in a build alike. */
export const EXAMPLES_FILE = fileURLToPath(new URL('../fixtures/openapi-examples.json', CODE_DIR));

/** The recorded examples with `serverUrl` in place of the address they were recorded at. */
export function loadExamples(serverUrl: string): OpenApiExamples {
  const text = readFileSync(EXAMPLES_FILE, 'utf8');
  return JSON.parse(serverUrl === EXAMPLES_BASE_URL ? text : text.replaceAll(EXAMPLES_BASE_URL, serverUrl)) as OpenApiExamples;
}
