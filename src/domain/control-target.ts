// Webhook URLs that would reach a sandbox's own control plane: a merchant's endpoint or webhook_url
// pointing at /_sandbox made the delivery worker (a loopback caller that sends no Origin, so the
// control guard let it in) drive the control API: it lost another merchant's dispute. Such a URL is
// refused when it is registered and never sent to (docs/security.md). The rule, in two halves:
// - the path: under /_sandbox as the sandbox's router reads it, whatever the spelling: percent-escapes
//   (/%5Fsandbox, even escaped twice), any case, repeated slashes, backslashes, dot segments;
// - the host: this machine, in any form the URL parser accepts: 127.0.0.0/8, 0.0.0.0 and [::1] or
//   [::] (also as decimal 2130706433, hex 0x7f.1, short 127.1, IPv4-mapped [::ffff:7f00:1]),
//   localhost and *.localhost, trailing dots, and the names the caller knows for the machine (its
//   host name and addresses, --host, --public-url's host). Any port: another sandbox on the machine,
//   or a proxy in front of this one, is the same control plane.
// Other paths of the sandbox (its /api/ or /v1/) are not refused: they take a merchant's
// credentials like any client, and a webhook carries none.

/** Reads percent-escapes of ASCII characters, as a router that decodes the path does. */
function decodeAscii(path: string): string {
  return path.replace(/%([0-7][0-9a-f])/gi, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));
}

/** Whether a URL's path is under /_sandbox however it is spelled. */
export function isControlPath(pathname: string): boolean {
  let path = pathname;
  // Decoded until nothing changes: "%255F" is "%5F" once and "_" twice (bounded: each pass shortens it).
  for (let next = decodeAscii(path); next !== path; next = decodeAscii(path)) path = next;
  path = path.replace(/\\/g, '/').replace(/\/{2,}/g, '/');
  // Dot segments that decoding revealed ("/x/%2E%2E/_sandbox"), resolved the way the URL parser does.
  const resolved = new URL(path.startsWith('/') ? path : `/${path}`, 'http://path.invalid').pathname;
  return resolved
    .toLowerCase()
    .replace(/\/{2,}/g, '/')
    .startsWith('/_sandbox');
}

/** The eight 16-bit groups of an IPv6 address as the URL parser writes it ("::ffff:7f00:1"), or undefined. */
function ipv6Groups(address: string): number[] | undefined {
  const [head = '', tail = '', ...rest] = address.split('::');
  if (rest.length > 0) return undefined;
  const part = (text: string) => (text === '' ? [] : text.split(':').map((group) => parseInt(group, 16)));
  const front = part(head);
  const back = address.includes('::') ? part(tail) : [];
  const groups = address.includes('::') ? [...front, ...new Array(8 - front.length - back.length).fill(0), ...back] : front;
  return groups.length === 8 && groups.every((g) => Number.isInteger(g) && g >= 0 && g <= 0xffff) ? groups : undefined;
}

/** Whether a dotted IPv4 address is loopback (127.0.0.0/8) or "this host" (0.0.0.0/8). */
function isLocalIPv4(address: string): boolean {
  const match = /^(\d{1,3})\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.exec(address);
  return match !== null && (match[1] === '127' || match[1] === '0');
}

/** Whether an IP address, as a URL, DNS or the OS writes it ("127.0.0.1", "::1", "[::ffff:7f00:1]"), is loopback or unspecified. */
export function isLocalAddress(address: string): boolean {
  const bare = address.replace(/^\[(.*)\]$/, '$1').toLowerCase();
  if (!bare.includes(':')) return isLocalIPv4(bare);
  // An IPv4 tail written dotted ("::ffff:127.0.0.1", as DNS answers may give it).
  const dotted = /^(.*:)(\d{1,3}\.\d{1,3}\.\d{1,3}\.\d{1,3})$/.exec(bare);
  if (dotted) return /^(::|::ffff:|0:0:0:0:0:ffff:)$/.test(dotted[1]) && isLocalIPv4(dotted[2]);
  const groups = ipv6Groups(bare);
  if (!groups || groups.slice(0, 5).some((g) => g !== 0)) return false;
  if (groups[5] === 0 && groups[6] === 0 && (groups[7] === 0 || groups[7] === 1)) return true;
  // IPv4-mapped (::ffff:a.b.c.d) forms of a local IPv4 address, and the IPv4-compatible ::127.x.y.z.
  const first = groups[6] >> 8;
  return (groups[5] === 0xffff && (first === 127 || first === 0)) || (groups[5] === 0 && first === 127);
}

/** A host name as compared: lower case, without the trailing dots DNS allows. */
export function hostKey(hostname: string): string {
  return hostname.toLowerCase().replace(/\.+$/, '');
}

/** Whether a URL's hostname names this machine without asking DNS: a local address, localhost, or one of `names` (already hostKey()ed). */
export function namesThisMachine(hostname: string, names: Iterable<string>): boolean {
  const host = hostKey(hostname);
  if (host === 'localhost' || host.endsWith('.localhost') || isLocalAddress(host)) return true;
  for (const name of names) if (name === host) return true;
  return false;
}

/** Why a webhook URL is refused (after the field name, or "the URL"), naming how to fix it. */
export function controlTargetProblem(url: string): string {
  return `points at the sandbox's own control API (/_sandbox on ${new URL(url).host}), which webhooks never reach: a delivery there could reset or change the sandbox; point it at your webhook handler, such as http://127.0.0.1:3000/webhooks`;
}
