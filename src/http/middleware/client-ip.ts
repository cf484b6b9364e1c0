// The connecting address (spec §2.1: bill_ip is set by the service, never taken from the body).
import type { Context } from 'hono';
import { getConnInfo } from '@hono/node-server/conninfo';

/** The remote address of the connection, or null when there is none (in-process app.request()). */
export function clientIp(c: Context): string | null {
  try {
    return getConnInfo(c).remote.address ?? null;
  } catch {
    return null;
  }
}

/** True for 127.0.0.0/8, ::1 and IPv4-mapped loopback; in-process requests count as loopback. */
export function isLoopback(address: string | null): boolean {
  if (address === null) return true;
  return address === '::1' || /^(::ffff:)?127\./.test(address);
}
