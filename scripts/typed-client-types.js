// Writes test-artifacts/typed-client/paysandbox-api.d.ts, the `paths` openapi-typescript makes of
// the OpenAPI document: test/contract/typed-client/merchant-client.ts imports it. The test
// (test/contract/typed-client.test.ts) writes it from a running sandbox's /openapi.json; this
// script writes it from the built document (dist/) so `npm run typecheck` can check the client
// and its test without starting a sandbox. Run after `npm run build`.
import { mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import openapiTS, { astToString } from 'openapi-typescript';

/** Where the generated types go. */
export const TYPED_CLIENT_TYPES = join(fileURLToPath(new URL('..', import.meta.url)), 'test-artifacts/typed-client/paysandbox-api.d.ts');

/**
 * Generates the types of `document` (an OpenAPI 3.1 document) into TYPED_CLIENT_TYPES.
 * @param {import('openapi-typescript').OpenAPI3} document
 * @param {string} source what the document came from, for the file's first line
 * @returns {Promise<void>}
 */
export async function writeTypedClientTypes(document, source) {
  mkdirSync(dirname(TYPED_CLIENT_TYPES), { recursive: true });
  // Written whole, then renamed into place: CI type-checks beside the tests (.ci/run), so tsc may
  // read the file while test/contract/typed-client.test.ts writes it, and must never see half of it.
  const partial = `${TYPED_CLIENT_TYPES}.${process.pid}.${Date.now()}.tmp`;
  writeFileSync(partial, `// Generated from ${source}.\n${astToString(await openapiTS(document))}`);
  renameSync(partial, TYPED_CLIENT_TYPES);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { buildOpenApiDocument } = await import('../dist/http/openapi/document.js');
  const { OPENAPI_ROUTES } = await import('../dist/http/openapi-routes.js');
  await writeTypedClientTypes(
    buildOpenApiDocument(OPENAPI_ROUTES, 'http://127.0.0.1:4010'),
    'the built OpenAPI document (scripts/typed-client-types.js)',
  );
}
