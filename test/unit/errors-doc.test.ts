import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ERROR_CATALOGUE } from '../../src/errors.js';
import { CLI_ERROR_CODES } from '../../src/cli/cli-error.js';

const doc = readFileSync(new URL('../../docs/errors.md', import.meta.url), 'utf8');

describe('docs/errors.md', () => {
  it.each(Object.entries(ERROR_CATALOGUE))('documents %s with its status', (code, entry) => {
    expect(doc).toContain(`| \`${code}\` | ${entry.status} | \`${entry.type}\` |`);
  });

  it.each(Object.entries(CLI_ERROR_CODES))('documents the CLI code %s', (code, when) => {
    expect(doc).toContain(`| \`${code}\` | ${when} |`);
  });
});
