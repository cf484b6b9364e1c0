// GET /llms.txt: one page for a language model about the sandbox (what it is, the test cards, the
// control API, the MCP server, links to the docs). The page is the package's own llms.txt, read
// once; test/unit/llms-txt.test.ts holds it to the test-card table and the MCP tools.
import { readFileSync } from 'node:fs';
import { Hono } from 'hono';
import { CODE_DIR } from '../code-dir.js';
import type { AppEnv } from './app-env.js';
import type { OpenApiRoute } from './openapi/route.js';

/** Where llms.txt is, in the source tree and in a build alike. */
export const LLMS_TXT_FILE = new URL('../llms.txt', CODE_DIR);

/** GET /llms.txt. */
export function llmsTxtRoutes() {
  const app = new Hono<AppEnv>();
  let text: string | undefined;
  app.get('/llms.txt', (c) => {
    text ??= readFileSync(LLMS_TXT_FILE, 'utf8');
    return c.body(text, 200, { 'Content-Type': 'text/markdown; charset=utf-8', 'Cache-Control': 'public, max-age=3600' });
  });
  return app;
}

/** The route of this module, for /openapi.json. */
export const llmsTxtOpenApi: OpenApiRoute[] = [
  {
    method: 'get',
    path: '/llms.txt',
    tag: 'Meta',
    auth: 'none',
    summary: 'The sandbox in one page for a language model: what it is, test cards, the control API, the MCP server, links to the docs',
    response: 'Markdown (llms.txt)',
    responseType: 'text/markdown',
  },
];
