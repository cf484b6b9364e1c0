// Fault rules (migrations 005 and 015): one row per fault kind per target and merchant. Read once into memory by the
// fault injector and written only through it, so the send path never queries this table.
import type { Db } from './open-database.js';
import type { FaultScope, FaultSource } from '../domain/vocabularies.js';

/** A stored fault rule; `value` is the text after `=` (N, a duration, a probability) or null. */
export interface FaultRule {
  id: string;
  scope: FaultScope;
  target: string;
  /** Only this merchant's requests and webhooks; '' for every merchant. */
  merchant: string;
  fault: string;
  value: string | null;
  /** The chance an API fault fires on a matching request; null = every time. */
  probability: number | null;
  source: FaultSource;
  createdAt: number;
}

const COLUMNS = 'id, scope, target, merchant, fault, value, probability, source, created_at AS createdAt';

/** Prepared statements over fault_rules. */
export function createFaultRulesRepo(db: Db) {
  // One rule per (scope, target, merchant, fault): setting it again replaces the value and probability.
  const upsert = db.prepare(`INSERT INTO fault_rules (id, scope, target, merchant, fault, value, probability, source, created_at)
    VALUES (@id, @scope, @target, @merchant, @fault, @value, @probability, @source, @createdAt)
    ON CONFLICT (scope, target, merchant, fault) DO UPDATE SET value = excluded.value, probability = excluded.probability,
      source = excluded.source, created_at = excluded.created_at`);
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
    /** Deletes the rules of one source (the --faults and scenario file ones are replaced at each start). */
    clearSource: (source: FaultRule['source']) => removeSource.run(source).changes,
  };
}
