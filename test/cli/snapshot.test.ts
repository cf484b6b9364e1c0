// `sandbox export`, `sandbox import FILE` and `sandbox reset` in-process against real sandboxes.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { RunningServer } from '../../src/server/start-server.js';
import { s2sBody, startTestServer } from '../helpers/test-sandbox.js';
import { runCli } from '../helpers/cli-harness.js';
import { api } from '../helpers/http.js';

let source: RunningServer;
let target: RunningServer;
let dir: string;
beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'snapshot-cli-'));
  [source, target] = await Promise.all([0, 1].map(() => startTestServer({ retry: 'none' })));
});
afterEach(async () => {
  await Promise.all([source.close(), target.close()]);
});

/** A snapshot's tables but the request journal (which logs every request, the exports themselves included). */
function withoutJournal(tables: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(tables).filter(([name]) => name !== 'request_journal'));
}

async function pay(server: RunningServer, reference: string, ccno = '4000000000003220') {
  return (await api(server.url).post('/api/s2s', s2sBody({ reference, ccno }))).json as { transID: string; order_status: string };
}

describe('sandbox export / import', () => {
  it('export prints the snapshot, one row per line; import puts the same state into another sandbox', async () => {
    const pending = await pay(source, 'cli-1');
    const exported = await runCli(['export', '--url', source.url]);
    expect(exported.error).toBeUndefined();
    const doc = JSON.parse(exported.out);
    expect(doc).toMatchObject({ format: 'paysandbox.snapshot', version: 1 });
    expect(exported.out).toMatch(/^ {6}"rows": \[\n {8}\["mer_sandbox","Sandbox Merchant","whsec_test_sandbox","fixtures","EUR"\],\n/m);
    // The same document the control API serves.
    const served = (await api(source.url).get('/_sandbox/export')).json;
    // The same tables, but the request journal: it gained the CLI's own export request in between.
    expect(withoutJournal(doc.tables)).toEqual(withoutJournal(served.tables));

    const file = join(dir, 'state.json');
    writeFileSync(file, exported.out);
    await pay(target, 'only-in-target');
    const imported = await runCli(['import', file, '--url', target.url]);
    expect(imported.error).toBeUndefined();
    expect(imported.out).toMatch(new RegExp(`^imported ${file}: .*2 merchants.*1 transactions`));
    const shown = (await api(target.url).get(`/_sandbox/transactions/${pending.transID}`)).json;
    expect(shown.authentication.state).toBe('open');
    const after = (await api(target.url).get('/_sandbox/export')).json;
    expect(withoutJournal(after.tables)).toEqual(withoutJournal(served.tables));
  });

  it('export -o writes a file', async () => {
    const file = join(dir, 'out.json');
    const run = await runCli(['export', '-o', file, '--url', source.url]);
    expect(run.err).toBe(`wrote ${file}`);
    expect(JSON.parse(readFileSync(file, 'utf8')).format).toBe('paysandbox.snapshot');
  });

  it('import refuses a file that is not JSON, and a snapshot the sandbox rejects, with one line', async () => {
    const notJson = join(dir, 'broken.json');
    writeFileSync(notJson, '{"format": ');
    expect((await runCli(['import', notJson, '--url', target.url])).error).toMatch(new RegExp(`^cannot read ${notJson} as JSON: `));
    expect((await runCli(['import', join(dir, 'missing.json'), '--url', target.url])).error).toMatch(
      /^cannot read .*missing\.json as JSON: ENOENT/,
    );

    const wrong = join(dir, 'wrong.json');
    writeFileSync(wrong, JSON.stringify({ format: 'other', version: 1, schema_version: 1, tables: {} }));
    expect((await runCli(['import', wrong, '--url', target.url])).error).toMatch(
      /^format is invalid: expected "paysandbox\.snapshot".* \(400 parameter_invalid\)$/,
    );
  });
});

describe('sandbox reset', () => {
  it('empties the state but keeps the credentials', async () => {
    await pay(source, 'cli-reset', '4242424242424242');
    const run = await runCli(['reset', '--url', source.url]);
    expect(run.error).toBeUndefined();
    expect(run.out).toBe('reset: 2 api_keys, 2 merchants, 2 terminals');
    expect((await pay(source, 'cli-reset', '4242424242424242')).order_status).toBe('25');
  });
});
