import { readFileSync } from 'node:fs';
import { expect, it } from 'vitest';
import { ERROR_CATALOGUE } from '../../src/errors.js';
import { CLI_ERROR_CODES } from '../../src/cli/cli-error.js';
import { errorsDoc } from '../../scripts/errors-doc.js';

it('docs/errors.md is what npm run docs:errors writes from the error catalogue, whole (run it after changing src/errors.ts)', () => {
  const doc = readFileSync(new URL('../../docs/errors.md', import.meta.url), 'utf8');
  expect(doc).toBe(errorsDoc(ERROR_CATALOGUE, CLI_ERROR_CODES));
});
