// Fault rules (migration 005): one row per fault kind per target. Read once into memory by the
// fault injector and written only through it, so the send path never queries this table.
import type { Db } from './open-database.js';

/** Where a rule applies: every delivery, one registered endpoint, or one URL. */
export type FaultScope = 'global' | 'endpoint' | 'url';

/** A stored fault rule; `value` is the text after `=` (N, a duration, a probability) or null. */
export interface FaultRule {
  id: string;
  scope: FaultScope;
  target: string;
  fault: string;
  value: string | null;
  source: 'flag' | 'api';
  createdAt: number;
}

const COLUMNS = 'id, scope, target, fault, value, source, created_at AS createdAt';

/** Prepared statements over fault_rules. */
export function createFaultRulesRepo(db: Db) {
  // One rule per (scope, target, fault): setting it again replaces the value.
  const upsert = db.prepare(`INSERT INTO fault_rules (id, scope, target, fault, value, source, created_at)
    VALUES (@id, @scope, @target, @fault, @value, @source, @createdAt)
    ON CONFLICT (scope, target, fault) DO UPDATE SET value = excluded.value, source = excluded.source, created_at = excluded.created_at`);
  const all = db.prepare(`SELECT ${COLUMNS} FROM fault_rules ORDER BY created_at, rowid`);
  const removeOne = db.prepare('DELETE FROM fault_rules WHERE id = ?');
  const removeAll = db.prepare('DELETE FROM fault_rules');
  const removeSource = db.prepare('DELETE FROM fault_rules WHERE source = ?');

  return {
    upsert: (rule: FaultRule) => upsert.run(rule),
    all: () => all.all() as FaultRule[],
    /** Deletes one rule; returns how many went (0 or 1). */
    remove: (id: string) => removeOne.run(id).changes,
    /** Deletes every rule; returns how many went. */
    clear: () => removeAll.run().changes,
    /** Deletes the rules of one source (the --faults ones are replaced at each start). */
    clearSource: (source: FaultRule['source']) => removeSource.run(source).changes,
  };
}

/** The fault rules repository. */
export type FaultRulesRepo = ReturnType<typeof createFaultRulesRepo>;
