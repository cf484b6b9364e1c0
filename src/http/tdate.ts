// tdate formats of spec §2.2 ("YYYY-MM-DD HH:MM:SS.ffffff") and 2.4 ("YYYY-MM-DD HH:MM:SS"), in UTC.

/** Formats sandbox-clock milliseconds as the gateway's tdate, with microseconds when asked. */
export function formatTdate(ms: number, micro: boolean): string {
  const iso = new Date(ms).toISOString(); // 2026-01-15T12:00:00.123Z
  const base = `${iso.slice(0, 10)} ${iso.slice(11, 19)}`;
  return micro ? `${base}.${iso.slice(20, 23)}000` : base;
}
