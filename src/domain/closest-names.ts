// "Did you mean ...?": the known names nearest to a mistyped one, for messages that refuse a name
// (event types, startSandbox() options).

/** Letters to change, add or drop to turn `a` into `b` (Levenshtein distance). */
function editDistance(a: string, b: string): number {
  let row = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const next = [i];
    for (let j = 1; j <= b.length; j++) next.push(Math.min(row[j] + 1, next[j - 1] + 1, row[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1)));
    row = next;
  }
  return row[b.length];
}

/** The known names at the smallest edit distance from `name`, if it is at most `maxDistance` (3); else none. */
export function closestNames(name: string, known: readonly string[], maxDistance = 3): string[] {
  const distances = known.map((candidate) => [candidate, editDistance(name.toLowerCase(), candidate.toLowerCase())] as const);
  const best = Math.min(...distances.map(([, d]) => d));
  return best <= maxDistance ? distances.filter(([, d]) => d === best).map(([candidate]) => candidate) : [];
}
