// The persisted sandbox clock (migration 014): its offset from the wall clock, and the newest
// sandbox time the database already holds, which a restarted clock must not fall behind.
import type { Db } from './open-database.js';
import { createStateTables } from './state-tables.js';

/** What a clock resumes from. */
export interface SavedClock {
  /** The saved offset from the wall clock in ms (0 when none was saved). */
  offsetMs: number;
  /** The newest sandbox time recorded: the last save, or any row's created_at / updated_at. */
  floor: number;
}

/** Prepared statements over sandbox_clock. */
export function createClockRepo(db: Db) {
  const read = db.prepare('SELECT offset_ms AS offsetMs, saved_at AS savedAt FROM sandbox_clock WHERE id = 1');
  const write = db.prepare(
    'INSERT INTO sandbox_clock (id, offset_ms, saved_at) VALUES (1, ?, ?) ON CONFLICT (id) DO UPDATE SET offset_ms = excluded.offset_ms, saved_at = excluded.saved_at',
  );
  const state = createStateTables(db);
  return {
    /** The saved offset and the floor (reads every table's newest time: call at start, reset and import only). */
    load(): SavedClock {
      const row = read.get() as { offsetMs: number; savedAt: number } | undefined;
      return { offsetMs: row?.offsetMs ?? 0, floor: Math.max(row?.savedAt ?? 0, state.newestTime(['created_at', 'updated_at'])) };
    },
    /** Records the offset and the sandbox time it was set at. */
    save(offsetMs: number, at: number): void {
      write.run(offsetMs, at);
    },
  };
}
