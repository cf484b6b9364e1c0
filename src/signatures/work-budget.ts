// The work one signature diagnosis may do. A diagnosis tries keys (the caller's secret in its
// forms, then every secret the sandbox holds) against the entries of the received signature
// header, hashing the body once per key and mode; with a big body, many merchants or a header of
// many entries that grows without limit, and it runs on the event loop (200 000 entries blocked
// the sandbox 8 s). So every hash and every comparison is counted, in bytes hashed or their
// equivalent, and a diagnosis that has spent its budget stops and answers `unknown`.

/** What one diagnosis may spend: 64 MiB hashed, tens of milliseconds (SHA-256 hashes about 1-2 GB/s). */
export const DIAGNOSIS_WORK = 64 * 1024 * 1024;
/** What one HMAC costs besides its bytes (making the context, the digest), as bytes hashed. */
export const HMAC_COST = 4096;
/** What comparing one signature entry with one key's digest costs (every spelling of it), as bytes hashed. */
export const ENTRY_COST = 2048;

/** Thrown once a diagnosis has spent its budget; the diagnosis answers `unknown` and says why. */
export class WorkBudgetSpent extends Error {
  constructor() {
    super('signature diagnosis work budget spent');
  }
}

/** The work left to one diagnosis. */
export class WorkBudget {
  private spentSoFar = 0;

  constructor(readonly limit: number = DIAGNOSIS_WORK) {}

  /** Work done so far, in bytes hashed or their equivalent. */
  get spent(): number {
    return this.spentSoFar;
  }

  /** Counts `units` of work about to be done; throws WorkBudgetSpent instead when they would pass the limit. */
  spend(units: number): void {
    if (this.spentSoFar + units > this.limit) throw new WorkBudgetSpent();
    this.spentSoFar += units;
  }
}
