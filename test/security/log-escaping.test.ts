// Log lines are written by the sandbox but carry what callers send: a %0a in a path or an ESC in a
// webhook_url must not forge a log line or colour the terminal, in the pretty log or in JSON lines.
import kleur from 'kleur';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createLogger, escapeControls } from '../../src/runtime/logger.js';
import { startFakeMerchant } from '../helpers/fake-merchant.js';
import { startLoggedServer } from '../helpers/logged-server.js';
import { s2sBody } from '../helpers/test-sandbox.js';
import { waitFor } from '../helpers/wait-for.js';

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!();
});
// The sandbox's own colours are ESC bytes too: switched off, any ESC left came from a caller.
const colours = kleur.enabled;
beforeAll(() => {
  kleur.enabled = false;
});
afterAll(() => {
  kleur.enabled = colours;
});

describe.each(['pretty', 'json'] as const)('the %s log', (format) => {
  it('writes one line for a request whose path holds %0a, %0d and ESC', async () => {
    const { sandbox, lines } = await startLoggedServer(format);
    cleanups.push(sandbox.close);
    const res = await fetch(`${sandbox.url}/%0aFORGED%20line%0d12:00:00.000%20GET%20/admin%20200%1b[31m`);
    expect(res.status).toBe(404);
    const line = await waitFor(() => lines.find((l) => l.includes('FORGED')), 'the request line');
    expect(lines.filter((l) => l.includes('FORGED'))).toHaveLength(1);
    expect(line).not.toMatch(/[\n\r\u001b]/);
    expect(line).toContain(
      format === 'json'
        ? '\\nFORGED line\\r12:00:00.000 GET /admin 200\\u001b[31m'
        : '\\nFORGED line\\r12:00:00.000 GET /admin 200\\x1b[31m',
    );
  });

  it('writes a webhook_url with terminal escape codes as text', async () => {
    const merchant = await startFakeMerchant();
    cleanups.push(merchant.close);
    const { sandbox, lines } = await startLoggedServer(format);
    cleanups.push(sandbox.close);
    const res = await fetch(`${sandbox.url}/api/s2s`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(
        s2sBody({ ccno: '4242424242424242', webhook_url: `${merchant.url}/hook\u001b[31mRED\u001b]0;title\u0007\u009b2J` }),
      ),
    });
    expect(res.status).toBe(200);
    const line = await waitFor(() => lines.find((l) => l.includes('RED')), 'the webhook attempt line');
    expect(lines.join('\n')).not.toMatch(/[\u001b\u0007\u009b]/);
    expect(line).toContain(
      format === 'json' ? '/hook\\u001b[31mRED\\u001b]0;title\\u0007\\u009b2J' : '/hook\\x1b[31mRED\\x1b]0;title\\x07\\x9b2J',
    );
    if (format === 'json') expect(JSON.parse(line).url).toBe(`${merchant.url}/hook\u001b[31mRED\u001b]0;title\u0007\u009b2J`);
  });
});

it('escapes C0, DEL, C1 and the Unicode line separators, and leaves other text alone', () => {
  expect(escapeControls('a\nb\rc\td\u0000e\u007ff\u0085g\u2028h\u2029 é 🙂')).toBe('a\\nb\\rc\\td\\x00e\\x7ff\\x85g\\u2028h\\u2029 é 🙂');
});

it('a bug line keeps its stack frames on indented lines, and a forged line in its message stays text', () => {
  const lines: string[] = [];
  const logger = createLogger({ format: 'pretty', quiet: false, write: (line) => lines.push(line) });
  logger.error('500 on GET /\n12:00:00.000 GET /admin 200 (req_1): boom\nFORGED', {
    stack: 'Error: boom\nFORGED\n    at handler (/app/x.js:1:2)\n    at next (/app/y.js:3:4)',
  });
  expect(lines).toEqual([
    '500 on GET /\\n12:00:00.000 GET /admin 200 (req_1): boom\\nFORGED\n    at handler (/app/x.js:1:2)\n    at next (/app/y.js:3:4)',
  ]);
});
