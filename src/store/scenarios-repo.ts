// The scenario queue (--scenario FILE, /_sandbox/scenarios): entries in the order they were
// loaded, each with how many uses it has and how many are spent.
import type { Db } from './open-database.js';

/** One queued entry; null match fields match anything. */
export interface ScenarioEntry {
  id: number;
  scenario: string;
  terNo: number | null;
  /** The merchant whose payments alone it decides (null: any merchant's). */
  merchantId: string | null;
  /** Exact text, or a glob with * and ? ("order-*"). */
  reference: string | null;
  /** Minor units. */
  amount: number | null;
  mop: string | null;
  /** A word of the outcome vocabulary (src/domain/outcome-spec.ts). */
  outcome: string;
  times: number;
  used: number;
  createdAt: number;
}

const COLUMNS =
  'id, scenario, ter_no AS terNo, merchant_id AS merchantId, reference, amount, mop, outcome, times, used, created_at AS createdAt';

/** Prepared statements over scenario_entries. */
export function createScenariosRepo(db: Db) {
  const insert =
    db.prepare(`INSERT INTO scenario_entries (scenario, ter_no, merchant_id, reference, amount, mop, outcome, times, created_at)
    VALUES (@scenario, @terNo, @merchantId, @reference, @amount, @mop, @outcome, @times, @createdAt)`);
  const all = db.prepare(`SELECT ${COLUMNS} FROM scenario_entries ORDER BY id`);
  const open = db.prepare(`SELECT ${COLUMNS} FROM scenario_entries WHERE used < times ORDER BY id`);
  const use = db.prepare('UPDATE scenario_entries SET used = used + 1 WHERE id = ? AND used < times');
  const clear = db.prepare('DELETE FROM scenario_entries');

  // Every payment asks for the open entries, and most runs have none: once none is known to be open,
  // that is the answer until an entry is added or the table may have changed behind this
  // repository (forget()). Spending a use never opens one.
  let noneOpen = false;
  return {
    insert: (e: Omit<ScenarioEntry, 'id' | 'used'>) => {
      noneOpen = false;
      return Number(insert.run(e).lastInsertRowid);
    },
    /** Every entry, spent ones included, in queue order. */
    all: () => all.all() as ScenarioEntry[],
    /** Entries with uses left, in queue order. */
    open(): ScenarioEntry[] {
      if (noneOpen) return [];
      const entries = open.all() as ScenarioEntry[];
      noneOpen = entries.length === 0;
      return entries;
    },
    /** Drops what is remembered (the table may have changed behind this repository). */
    forget: () => {
      noneOpen = false;
    },
    /** Spends one use; false when another request spent the last one first. */
    use: (id: number) => use.run(id).changes === 1,
    clear: () => clear.run().changes,
  };
}
