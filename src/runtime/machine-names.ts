// The names this machine goes by, for the control-target rule (src/domain/control-target.ts): its
// host name, the addresses of its interfaces, the --host the sandbox listens on and --public-url's
// host, besides the loopback forms the rule knows itself. Read when asked, and only URLs whose path
// is under /_sandbox ask, so the cost stays off every other webhook. Before a delivery is sent, a
// name that is none of these is also looked up: "127.0.0.1.nip.io" or a hosts-file alias of the
// machine is refused like 127.0.0.1.
import { hostname, networkInterfaces } from 'node:os';
import type { Config } from '../config.js';
import { controlTargetProblem, hostKey, isControlPath, isLocalAddress, namesThisMachine } from '../domain/control-target.js';

/** The settings that say where this sandbox is reachable. */
export type Where = Pick<Config, 'host' | 'publicUrl'>;

/** A host name or address as a URL's hostname writes it ("fd00::2" becomes "[fd00::2]"), or undefined when no URL can hold it. */
function asHostname(name: string): string | undefined {
  try {
    return hostKey(new URL(`http://${name.includes(':') && !name.startsWith('[') ? `[${name}]` : name}`).hostname);
  } catch {
    return undefined;
  }
}

/** This machine's names besides the loopback forms, as URL hostnames. */
export function machineNames(config: Where): string[] {
  const addresses = Object.values(networkInterfaces()).flatMap((list) => (list ?? []).map((entry) => entry.address));
  const names = [hostname(), config.host, ...addresses, ...(config.publicUrl ? [new URL(config.publicUrl).hostname] : [])];
  return names.map(asHostname).filter((name): name is string => name !== undefined);
}

/** Whether `url` is a sandbox control API URL on this machine, by its text alone. */
export function isControlTarget(url: URL, config: Where): boolean {
  return isControlPath(url.pathname) && namesThisMachine(url.hostname, machineNames(config));
}

/** Why a webhook must not be sent to `url` (the control API, by its text or by what its name resolves to), or undefined to send it. */
export async function controlTargetRefusal(url: URL, config: Where): Promise<string | undefined> {
  if (!isControlPath(url.pathname)) return undefined;
  const names = machineNames(config);
  let local = namesThisMachine(url.hostname, names);
  if (!local && !/^\[|^[\d.]+$/.test(url.hostname)) {
    // Loaded here, on the first name to resolve: a start needs none, and it cost every start 1.3 ms under the sandbox's V8 flags.
    const { lookup } = await import('node:dns/promises');
    const found = await lookup(hostKey(url.hostname), { all: true }).catch(() => []);
    local = found.some(({ address }) => isLocalAddress(address) || names.includes(asHostname(address) ?? ''));
  }
  return local ? `not sent: the URL ${controlTargetProblem(url.href)}` : undefined;
}
