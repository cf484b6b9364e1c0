// Every table of the schema says which merchant owns its rows (or that it is shared), so a scoped
// reset or a merchant's deletion cannot leave rows of a table added by a later migration behind.
import { describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/store/open-database.js';
import { createMerchantRows, SHARED_TABLES } from '../../src/store/merchant-rows.js';

describe('merchant rows', () => {
  it('knows the owner of the rows of every table of the schema', () => {
    const db = openDatabase(':memory:');
    const ownership = createMerchantRows(db).ownership();
    const tables = (db.pragma('table_list') as Array<{ name: string; schema: string }>)
      .filter((t) => t.schema === 'main' && !t.name.startsWith('sqlite_'))
      .map((t) => t.name);
    expect(Object.keys(ownership).sort()).toEqual(tables.sort());
    for (const [table, condition] of Object.entries(ownership)) expect(condition === null, table).toBe(SHARED_TABLES.has(table));
    db.close();
  });

  it('refuses to guess about a table that has neither a merchant_id column nor an entry', () => {
    const db = openDatabase(':memory:');
    db.exec('CREATE TABLE ledgers (id TEXT PRIMARY KEY)');
    expect(() => createMerchantRows(db).ownership()).toThrow(/table ledgers .* src\/store\/merchant-rows.ts/);
    db.close();
  });
});
