// llms.txt, served at GET /llms.txt and shipped in the package: it names every test card with its
// token, every outcome word, every MCP tool and prompt, and links only pages that exist.
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';
import { OUTCOME_WORDS } from '../../src/domain/outcome-spec.js';
import { TEST_CARDS } from '../../src/domain/outcomes.js';
import { MCP_PROMPTS } from '../../src/mcp/prompts.js';
import { MCP_TOOLS } from '../../src/mcp/tools.js';
import { createTestSandbox } from '../helpers/test-sandbox.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const text = readFileSync(`${ROOT}llms.txt`, 'utf8');

it('names every test card with its token, and every outcome word', () => {
  for (const card of TEST_CARDS) expect(text, card.number).toContain(`- ${card.number} (${card.token}): `);
  for (const { word } of OUTCOME_WORDS) expect(text, word).toContain(word);
});

it('names every tool and prompt of the MCP server', () => {
  for (const tool of MCP_TOOLS) expect(text, tool.name).toContain(tool.name);
  for (const prompt of MCP_PROMPTS) expect(text, prompt.name).toContain(prompt.name);
});

it('links pages that exist, and is in the package', () => {
  const links = [...text.matchAll(/\]\(([^)]+)\)/g)].map((m) => m[1]!);
  expect(links.length).toBeGreaterThan(3);
  for (const link of links) expect(existsSync(`${ROOT}${link}`), link).toBe(true);
  expect(JSON.parse(readFileSync(`${ROOT}package.json`, 'utf8')).files).toContain('llms.txt');
});

it('is served at GET /llms.txt as Markdown', async () => {
  const sandbox = createTestSandbox();
  try {
    const res = await sandbox.request('GET', '/llms.txt');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/markdown; charset=utf-8');
    expect(res.text).toBe(text);
  } finally {
    sandbox.close();
  }
});
