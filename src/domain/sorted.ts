// Binary search over a sorted list, for the few in-memory lists kept sorted as items come and go
// (the credentials repository's remembered lists, the public key index).

/** The index before which a new item goes: the count of leading items `before` says come first. */
export function insertionPoint<T>(sorted: readonly T[], before: (item: T) => boolean): number {
  let [low, high] = [0, sorted.length];
  while (low < high) {
    const mid = (low + high) >>> 1;
    if (before(sorted[mid])) low = mid + 1;
    else high = mid;
  }
  return low;
}
