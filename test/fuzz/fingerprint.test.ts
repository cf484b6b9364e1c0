// The check behind every fuzz test's "a refused request changes nothing" (fuzz-kit.ts dbFingerprint):
// it must see each kind of write, and only writes, or every fuzz test passes whatever is written.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createTestSandbox, type TestSandbox } from '../helpers/test-sandbox.js';
import { dbFingerprint, without } from './fuzz-kit.js';

let sb: TestSandbox;
beforeEach(() => {
  sb = createTestSandbox();
});
afterEach(() => sb.close());

const merchant = () => sb.db.prepare('SELECT id, name FROM merchants LIMIT 1').get() as { id: string; name: string };

describe('the database fingerprint of the fuzz tests', () => {
  it('changes when a row is inserted, changed or deleted, in the table written', () => {
    const { id, name } = merchant();
    const before = dbFingerprint(sb);
    sb.db.prepare('UPDATE merchants SET name = ? WHERE id = ?').run(`${name} (renamed)`, id);
    const renamed = dbFingerprint(sb);
    expect(renamed).not.toEqual(before);
    expect(without(renamed, ['merchants'])).toEqual(without(before, ['merchants']));
    sb.db.prepare("INSERT INTO merchants (id, name, webhook_secret) VALUES ('m_fp', 'fp', 'whsec_fp')").run();
    const inserted = dbFingerprint(sb);
    expect(inserted).not.toEqual(renamed);
    sb.db.prepare("DELETE FROM merchants WHERE id = 'm_fp'").run();
    expect(dbFingerprint(sb)).not.toEqual(inserted);
  });

  it('stays the same for reads, an update that leaves the row as it was, a rolled-back write and the request journal', async () => {
    const { id, name } = merchant();
    const before = dbFingerprint(sb);
    sb.db.prepare('SELECT * FROM transactions').all();
    sb.db.prepare('UPDATE merchants SET name = ? WHERE id = ?').run(name, id);
    sb.db.exec('SAVEPOINT s');
    sb.db.prepare("INSERT INTO merchants (id, name, webhook_secret) VALUES ('m_gone', 'gone', 'whsec_gone')").run();
    sb.db.exec('ROLLBACK TO s');
    sb.db.exec('RELEASE s');
    // A GET is kept in the request journal: a log of what was asked, not state.
    expect((await sb.request('GET', '/_sandbox/merchants')).status).toBe(200);
    expect(dbFingerprint(sb)).toEqual(before);
  });

  it('leaves what the sandbox answers as it was: a write still reports its own changes', async () => {
    dbFingerprint(sb);
    const res = await sb.request('POST', '/_sandbox/merchants', { name: 'Counted' });
    expect(res.status).toBe(201);
    const merchants = (await sb.request('GET', '/_sandbox/merchants')).json as { data: { name: string }[] };
    expect(merchants.data.map((m) => m.name)).toContain('Counted');
  });
});
