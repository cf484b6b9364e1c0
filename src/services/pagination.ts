// Keyset pages of newest-first lists: read one row more than asked to learn whether another page
// follows, so no list ever counts or offsets. Every list that pages uses it: the /v1/ lists and the
// control API's deliveries, events, chargebacks, settlements and merchants (the one oldest-first
// list: seeded merchants first); src/views/list.ts answers the page.
import { SandboxError } from '../errors.js';
import type { Page } from '../views/list.js';

/** Reads `limit` rows through `read` (called with limit + 1) and reports whether more follow. */
export function readPage<T>(limit: number, read: (limitPlusOne: number) => T[]): Page<T> {
  const rows = read(limit + 1);
  return { data: rows.slice(0, limit), hasMore: rows.length > limit };
}

/** The row a list continues after: its time and id. */
export interface CursorRow {
  createdAt: number;
  id: string;
}

/** The cursor row of `startingAfter` (undefined when not given); a 404 on starting_after saying `missing` when `find` knows no such row. */
export function cursorRow(
  startingAfter: string | undefined,
  find: (id: string) => CursorRow | undefined,
  missing: string,
): CursorRow | undefined {
  if (startingAfter === undefined || startingAfter === '') return undefined;
  const row = find(startingAfter);
  if (!row) throw new SandboxError('resource_missing', missing, 'starting_after');
  return { createdAt: row.createdAt, id: row.id };
}
