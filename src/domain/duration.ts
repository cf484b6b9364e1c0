// Durations as people type them on the command line: 500ms, 30s, 15m, 2h, 1d, or a sum like 1h30m.
const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** The longest duration accepted anywhere (clock advance, delays, lifetimes): 10 years. Longer ones
 * would push sandbox time past what dates can show, so they are refused like malformed text. */
export const MAX_DURATION_MS = 3650 * 86_400_000;

/** Parses "1h30m" style text to milliseconds; a bare number means seconds. Undefined when malformed or over MAX_DURATION_MS. */
export function parseDuration(text: string): number | undefined {
  const ms = parseUnbounded(text);
  return ms !== undefined && ms <= MAX_DURATION_MS ? ms : undefined;
}

function parseUnbounded(text: string): number | undefined {
  const trimmed = text.trim();
  if (/^\d+(\.\d+)?$/.test(trimmed)) return Math.round(Number(trimmed) * 1000);
  const parts = trimmed.match(/^((\d+(\.\d+)?)(ms|s|m|h|d))+$/);
  if (!parts) return undefined;
  let total = 0;
  for (const [, amount, , unit] of trimmed.matchAll(/(\d+(\.\d+)?)(ms|s|m|h|d)/g)) {
    total += Number(amount) * UNIT_MS[unit as string];
  }
  return Math.round(total);
}

/** Formats milliseconds the way parseDuration reads them, largest units first (90000 -> "1m30s"). */
export function formatDuration(ms: number): string {
  if (ms < 1000) return `${ms}ms`;
  let rest = Math.round(ms / 1000);
  const out: string[] = [];
  for (const [unit, size] of [
    ['d', 86400],
    ['h', 3600],
    ['m', 60],
    ['s', 1],
  ] as const) {
    if (rest >= size) {
      out.push(`${Math.floor(rest / size)}${unit}`);
      rest %= size;
    }
  }
  return out.join('');
}

/**
 * Why `text` cannot move the sandbox clock, or undefined when it can: `clock advance` takes a
 * positive duration with a unit ("15" could mean seconds or days, so it is refused) and never
 * goes backwards.
 */
export function clockAdvanceProblem(text: string): string | undefined {
  const trimmed = text.trim();
  if (trimmed.startsWith('-'))
    return `the sandbox clock only moves forward; give duration as a positive amount such as "15m", not "${trimmed}"`;
  if (/^\d+(\.\d+)?$/.test(trimmed))
    return `duration "${trimmed}" has no unit; add a unit: ${trimmed}s, ${trimmed}m, ${trimmed}h or ${trimmed}d`;
  const ms = parseDuration(trimmed);
  if (ms === undefined) return `duration must be a duration such as "15m", "90s", "2h" or "1d" (at most 3650d), got "${trimmed}"`;
  if (ms <= 0) return `duration must be more than 0, such as "15m", got "${trimmed}"`;
  return undefined;
}
