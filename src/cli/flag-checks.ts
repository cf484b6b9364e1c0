// Checks of the flag values several commands share, before any request: each refusal names the
// flag, what it takes and what it got.
import { orList, SIGNATURE_MODES, type SignatureMode } from '../domain/vocabularies.js';
import { formatDuration, parseDuration } from '../domain/duration.js';
import { CliError } from './cli-error.js';

/** The --signature mode; refuses anything but one of SIGNATURE_MODES. */
export function signatureModeFlag(value: string): SignatureMode {
  if (!(SIGNATURE_MODES as readonly string[]).includes(value))
    throw new CliError(`--signature must be ${orList(SIGNATURE_MODES)}, got "${value}"`);
  return value as SignatureMode;
}

/** How many --count says to take before stopping (Infinity without it); refuses a count not above 0. */
export function countFlag(value: string | undefined): number {
  const limit = value === undefined ? Infinity : Number(value);
  if (!(limit > 0)) throw new CliError(`--count must be a whole number above 0, got "${value}"`);
  return limit;
}

/** The longest any --timeout may be: Node's timers end at once past 2^31 - 1 ms (24.8 days). */
const TIMER_MAX_MS = 24 * 24 * 60 * 60 * 1000;

/** The --timeout in milliseconds; refuses what is no duration above 0, or over `maxMs` (`example` shows two, e.g. "30s or 2m"). */
export function timeoutFlag(value: string, example: string, maxMs = TIMER_MAX_MS): number {
  const timeoutMs = parseDuration(value);
  if (timeoutMs === undefined || timeoutMs <= 0) throw new CliError(`--timeout must be a duration like ${example}, got "${value}"`);
  if (timeoutMs > maxMs)
    throw new CliError(`--timeout must be at most ${formatDuration(maxMs)}, got "${value}"; give a duration like ${example}`);
  return timeoutMs;
}
