// Percentiles over raw samples (milliseconds). Kept exact rather than bucketed: the targets sit
// near 1-10 ms, where a whole-millisecond histogram would hide the answer.

/** The value below which `p` percent of the sorted samples fall (nearest rank). */
export function percentile(sorted, p) {
  if (sorted.length === 0) return NaN;
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length - 1, Math.max(0, rank - 1))];
}

/** n, mean, p50, p99 and max of a list of samples. */
export function summarise(samples) {
  const sorted = [...samples].sort((a, b) => a - b);
  const sum = sorted.reduce((total, x) => total + x, 0);
  return {
    n: sorted.length,
    mean: sorted.length ? sum / sorted.length : NaN,
    p50: percentile(sorted, 50),
    p99: percentile(sorted, 99),
    max: sorted.length ? sorted[sorted.length - 1] : NaN,
  };
}

/** The median of a few numbers (start-up runs). */
export function median(values) {
  return percentile(
    [...values].sort((a, b) => a - b),
    50,
  );
}
