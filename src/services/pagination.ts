// Keyset pages of newest-first lists: read one row more than asked to learn whether another page
// follows, so no list ever counts or offsets. Every list that pages by starting_after uses it: the
// /v1/ lists and the control API's deliveries and events.

/** One page of a list and whether more rows follow. */
export interface Page<T> {
  data: T[];
  hasMore: boolean;
}

/** Reads `limit` rows through `read` (called with limit + 1) and reports whether more follow. */
export function readPage<T>(limit: number, read: (limitPlusOne: number) => T[]): Page<T> {
  const rows = read(limit + 1);
  return { data: rows.slice(0, limit), hasMore: rows.length > limit };
}
