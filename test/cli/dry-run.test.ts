// --dry-run of reset, clock advance and import: the same checks as the real run, what would happen
// printed (as JSON with --json), and nothing changed in the sandbox.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningServer } from '../../src/server/start-server.js';
import { runCli } from '../helpers/cli-harness.js';
import { api } from '../helpers/http.js';
import { startFakeMerchant, type FakeMerchant } from '../helpers/fake-merchant.js';
import { s2sBody, startTestServer } from '../helpers/test-sandbox.js';
import { waitFor } from '../helpers/wait-for.js';

let sandbox: RunningServer;
let dir: string;
let merchant: FakeMerchant;

beforeAll(async () => {
  sandbox = await startTestServer();
  dir = mkdtempSync(join(tmpdir(), 'paysandbox-dry-'));
  merchant = await startFakeMerchant();
  await api(sandbox.url).post('/api/s2s', s2sBody({ ccno: '4242424242424242', webhook_url: `${merchant.url}/webhooks` }));
  // Its webhooks delivered, the state stands still: a retrying delivery would add attempts between two looks.
  await waitFor(
    async () => {
      const deliveries = (await api(sandbox.url).get('/_sandbox/deliveries')).json as { data: { status: string }[] };
      return (deliveries.data.length > 0 && deliveries.data.every((d) => d.status === 'succeeded')) || undefined;
    },
    'the payment webhooks delivered',
    30_000,
  );
});
afterAll(async () => {
  await sandbox.close();
  await merchant.close();
  rmSync(dir, { recursive: true, force: true });
});

/** What the sandbox holds: its exported tables' row counts and its clock. */
async function state() {
  const doc = (await api(sandbox.url).get('/_sandbox/export')).json as { tables: Record<string, { rows: unknown[] }> };
  const clock = (await api(sandbox.url).get('/_sandbox/clock')).json as { offset_ms: number };
  // The request journal grows with every request, these reads included (docs/journal.md): it is the log, not the state.
  const tables = Object.entries(doc.tables).filter(([name]) => name !== 'request_journal');
  return { rows: Object.fromEntries(tables.map(([name, t]) => [name, t.rows.length])), offset: clock.offset_ms };
}

describe('--dry-run', () => {
  it("reset --dry-run says what would be emptied and empties nothing; an unknown merchant is the real run's error", async () => {
    const before = await state();
    const all = await runCli(['reset', '--dry-run', '--url', sandbox.url]);
    expect(all.out).toBe(
      `dry run: would empty every table of ${sandbox.url} but the seeded credentials (created merchants go too), reseed them and reload --scenario; nothing was changed (run it again without --dry-run)`,
    );
    const one = await runCli(['reset', '--dry-run', '--merchant', 'mer_sandbox', '--json', '--url', sandbox.url]);
    expect(JSON.parse(one.out)).toEqual({
      dry_run: true,
      request: { method: 'POST', url: `${sandbox.url}/_sandbox/reset`, body: { merchant: 'mer_sandbox' } },
      merchant: { id: 'mer_sandbox', name: 'Sandbox Merchant' },
    });
    const unknown = await runCli(['reset', '--dry-run', '--merchant', 'mer_nobody', '--url', sandbox.url]);
    expect(unknown.error).toMatch(/mer_nobody/);
    expect((await state()).rows).toEqual(before.rows);
    expect(before.rows.transactions).toBeGreaterThan(0);
  });

  it('clock advance --dry-run says from when to when, and moves nothing', async () => {
    const before = await state();
    const run = await runCli(['clock', 'advance', '2h', '--dry-run', '--json', '--url', sandbox.url]);
    const answer = JSON.parse(run.out);
    expect(answer).toMatchObject({
      dry_run: true,
      request: { method: 'POST', url: `${sandbox.url}/_sandbox/clock/advance`, body: { duration: '2h' } },
    });
    expect(Date.parse(answer.would_be) - Date.parse(answer.now)).toBe(2 * 3_600_000);
    expect((await runCli(['clock', 'advance', '-1h', '--dry-run', '--url', sandbox.url])).error).toMatch(/forward/);
    expect((await state()).offset).toBe(before.offset);
  });

  it('import --dry-run checks the snapshot and counts its rows, and replaces nothing', async () => {
    const doc = (await api(sandbox.url).get('/_sandbox/export')).json as { tables: Record<string, { rows: unknown[] }> };
    const file = join(dir, 'state.json');
    writeFileSync(file, JSON.stringify({ ...doc, tables: { ...doc.tables, transactions: { ...doc.tables.transactions, rows: [] } } }));
    const before = await state();
    const run = await runCli(['import', file, '--dry-run', '--url', sandbox.url]);
    expect(run.out).toMatch(
      new RegExp(`^dry run: would replace the whole state of ${sandbox.url} with ${file}: \\d+ rows in \\d+ tables; nothing was changed`),
    );
    const json = JSON.parse((await runCli(['import', file, '--dry-run', '--json', '--url', sandbox.url])).out);
    expect(json.tables.transactions).toBe(0);
    expect((await state()).rows).toEqual(before.rows);
    writeFileSync(join(dir, 'bad.json'), JSON.stringify({ format: 'something', tables: {} }));
    expect((await runCli(['import', join(dir, 'bad.json'), '--dry-run', '--url', sandbox.url])).error).toMatch(
      /is not a snapshot the sandbox takes: format/,
    );
  });

  it('refuses a sandbox that does not answer, as the real run would', async () => {
    expect((await runCli(['reset', '--dry-run', '--url', 'http://127.0.0.1:9'])).error).toMatch(
      /no sandbox answers at http:\/\/127.0.0.1:9/,
    );
  });
});
