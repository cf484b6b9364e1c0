// The local CA of `sandbox start --https`: a CA certificate made once under .sandbox/tls/ and a
// server certificate for localhost, 127.0.0.1 and ::1 signed by it, the way mkcert does it, so a
// merchant trusts one file (ca.pem) and every later start serves a certificate it already trusts.
// Unlike mkcert's, the CA can vouch for local names only: critical name constraints limit it to
// localhost, 127.0.0.0/8 and ::1, so its key (a file in the project) cannot make a certificate a
// browser that trusts ca.pem would accept for any other site; and it lasts two years, not ten.
// A CA found on disk is used only when it is such a CA (one this code made, or an equal one);
// otherwise (none, unreadable, expired, unconstrained, not its key's) a new one is made and
// localCa() says why, for the banner: every client that trusted the old one must trust the new.
// The server certificate is reused while valid and remade by the same CA a day before it ends.
// node-forge builds the certificates (Node has no API to make one); the keys come from node:crypto.
import { createPrivateKey, generateKeyPairSync, randomBytes, X509Certificate } from 'node:crypto';
import { closeSync, openSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join, resolve } from 'node:path';
import forge from 'node-forge';
import { ensureDirectory } from '../store/sandbox-dir.js';
import { CA_FILES, TLS_DIR } from './ca-files.js';
import { readPemFile } from './pem-file.js';
import { errorMessage } from '../errors.js';

/** The files of the local CA: the CA certificate merchants trust, and the server certificate it signed. */
export interface LocalCa {
  /** Absolute paths. */
  readonly caFile: string;
  readonly certFile: string;
  readonly keyFile: string;
  /** PEM text. */
  readonly ca: string;
  readonly cert: string;
  readonly key: string;
  /**
   * Set when this call made a new CA: why (no CA yet, or what was wrong with the one on disk).
   * Every client that trusted the old CA must trust the new ca.pem; the banner says so.
   */
  readonly newCa: string | undefined;
}

const DAY_MS = 24 * 60 * 60 * 1000;
/** Two years: long enough to trust once per project, short enough that a leaked key ages out. */
const CA_LIFETIME_MS = 730 * DAY_MS;
/** 397 days (the longest browsers accept from public CAs), so it is remade once by the same CA within the CA's life. */
const SERVER_LIFETIME_MS = 397 * DAY_MS;
/** notBefore is set this far back: a client whose clock is a little behind must not see "not yet valid". */
const BACKDATE_MS = 60 * 60 * 1000;
/** A certificate this close to its end is made again now rather than expire during a run. */
const RENEW_BEFORE_MS = DAY_MS;
/** The names the server certificate covers: every way a local client reaches the sandbox. */
const SERVER_NAMES = { dns: ['localhost'], ip: ['127.0.0.1', '::1'] };

const FILES = CA_FILES;
const { asn1 } = forge;

/** One GeneralSubtree of a name constraint: a GeneralName of `tag` (2 dNSName, 7 iPAddress) and its bytes. */
function subtree(tag: number, bytes: string): forge.asn1.Asn1 {
  return asn1.create(asn1.Class.UNIVERSAL, asn1.Type.SEQUENCE, true, [asn1.create(asn1.Class.CONTEXT_SPECIFIC, tag, false, bytes)]);
}

/** The subtrees the CA may name, each as its GeneralName tag and bytes: localhost, 127.0.0.0/8, ::1/128. */
const PERMITTED: readonly { tag: number; bytes: string }[] = [
  { tag: 2, bytes: 'localhost' },
  // An iPAddress constraint is the address followed by its mask.
  { tag: 7, bytes: String.fromCharCode(127, 0, 0, 0, 255, 0, 0, 0) },
  { tag: 7, bytes: `${'\0'.repeat(15)}\u0001${'\u00ff'.repeat(16)}` },
];

/** The nameConstraints extension (RFC 5280 4.2.1.10), critical: permitted subtrees PERMITTED, nothing else. */
function nameConstraints(): { id: string; critical: true; value: forge.asn1.Asn1 } {
  const permitted = asn1.create(
    asn1.Class.CONTEXT_SPECIFIC,
    0,
    true,
    PERMITTED.map(({ tag, bytes }) => subtree(tag, bytes)),
  );
  return { id: '2.5.29.30', critical: true, value: asn1.create(asn1.Class.UNIVERSAL, asn1.Type.SEQUENCE, true, [permitted]) };
}

/** A fresh RSA key pair as PEM (made by node:crypto: forge's own generator is pure JavaScript and slow). */
function newKeyPair(): { publicKey: string; privateKey: string } {
  return generateKeyPairSync('rsa', {
    modulusLength: 2048,
    publicKeyEncoding: { type: 'spki', format: 'pem' },
    privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
  });
}

/** A positive random serial number (RFC 5280: unique per CA, at most 20 octets). */
function serialNumber(): string {
  const bytes = randomBytes(16);
  bytes.writeUInt8(bytes.readUInt8(0) & 0x7f, 0);
  return bytes.toString('hex');
}

function newCertificate(publicKeyPem: string, notAfter: number): forge.pki.Certificate {
  const cert = forge.pki.createCertificate();
  cert.publicKey = forge.pki.publicKeyFromPem(publicKeyPem);
  cert.serialNumber = serialNumber();
  cert.validity.notBefore = new Date(Date.now() - BACKDATE_MS);
  cert.validity.notAfter = new Date(notAfter);
  return cert;
}

/** A self-signed CA that may sign server certificates for local names only (path length 0, name constraints). */
function makeCa(): Pair {
  const keys = newKeyPair();
  const cert = newCertificate(keys.publicKey, Date.now() + CA_LIFETIME_MS);
  const name = [
    { name: 'commonName', value: `paysandbox local CA (${hostname()})` },
    { name: 'organizationName', value: 'paysandbox (development only, localhost)' },
  ];
  cert.setSubject(name);
  cert.setIssuer(name);
  cert.setExtensions([
    { name: 'basicConstraints', cA: true, pathLenConstraint: 0, critical: true },
    { name: 'keyUsage', keyCertSign: true, cRLSign: true, critical: true },
    nameConstraints(),
    { name: 'subjectKeyIdentifier' },
  ]);
  cert.sign(forge.pki.privateKeyFromPem(keys.privateKey), forge.md.sha256.create());
  return { cert: forge.pki.certificateToPem(cert), key: keys.privateKey };
}

/** A server certificate for localhost, 127.0.0.1 and ::1, signed by the CA, ending no later than it. */
function makeServerCertificate(ca: Pair): Pair {
  const keys = newKeyPair();
  const caCert = forge.pki.certificateFromPem(ca.cert);
  const cert = newCertificate(keys.publicKey, Math.min(Date.now() + SERVER_LIFETIME_MS, caCert.validity.notAfter.getTime()));
  cert.setSubject([{ name: 'commonName', value: 'localhost' }]);
  cert.setIssuer(caCert.subject.attributes);
  cert.setExtensions([
    { name: 'basicConstraints', cA: false },
    { name: 'keyUsage', digitalSignature: true, keyEncipherment: true, critical: true },
    { name: 'extKeyUsage', serverAuth: true },
    {
      name: 'subjectAltName',
      altNames: [...SERVER_NAMES.dns.map((value) => ({ type: 2, value })), ...SERVER_NAMES.ip.map((ip) => ({ type: 7, ip }))],
    },
    { name: 'subjectKeyIdentifier' },
    { name: 'authorityKeyIdentifier', keyIdentifier: caCert.generateSubjectKeyIdentifier().getBytes() },
  ]);
  cert.sign(forge.pki.privateKeyFromPem(ca.key), forge.md.sha256.create());
  return { cert: forge.pki.certificateToPem(cert), key: keys.privateKey };
}

/** A certificate and its key, as PEM. */
interface Pair {
  cert: string;
  key: string;
}

/** Both files' text, or why they cannot be read (a FIFO, a device, a huge file, no permission...). */
function readPair(certFile: string, keyFile: string): Pair | { problem: string } {
  const read = (path: string) => {
    try {
      return readPemFile(path);
    } catch (err) {
      return { problem: `${path}: ${errorMessage(err)}` };
    }
  };
  const cert = read(certFile);
  const key = read(keyFile);
  if (typeof cert !== 'string') return cert;
  if (typeof key !== 'string') return key;
  return { cert, key };
}

/** Why `pair` cannot be used for another run: its key is another's, or it ends within RENEW_BEFORE_MS; undefined when it can. */
function pairProblem(pair: Pair, what: string): string | undefined {
  let parsed: X509Certificate;
  try {
    parsed = new X509Certificate(pair.cert);
  } catch (err) {
    return `${what} is not a readable PEM certificate (${errorMessage(err)})`;
  }
  try {
    if (!parsed.checkPrivateKey(createPrivateKey(pair.key))) return `its key file does not hold the key of ${what}`;
  } catch (err) {
    return `its key file is not a readable PEM private key (${errorMessage(err)})`;
  }
  const left = Date.parse(parsed.validTo) - Date.now();
  if (left <= 0) return `${what} expired on ${parsed.validTo}`;
  if (left <= RENEW_BEFORE_MS) return `${what} expires on ${parsed.validTo}, within a day`;
  if (Date.parse(parsed.validFrom) > Date.now()) return `${what} is valid only from ${parsed.validFrom}`;
  return undefined;
}

/**
 * Why the CA on disk is not one to keep using, or undefined when it is: a usable pair that is a CA
 * for server certificates only (path length 0), critically constrained to PERMITTED and nothing
 * wider, and lasting at most CA_LIFETIME_MS.
 */
function caProblem(pair: Pair): string | undefined {
  const problem = pairProblem(pair, 'the CA certificate');
  if (problem) return problem;
  let cert: forge.pki.Certificate;
  try {
    cert = forge.pki.certificateFromPem(pair.cert);
  } catch (err) {
    return `the CA certificate cannot be read (${errorMessage(err)})`;
  }
  const constraints = cert.getExtension('nameConstraints') as {
    critical?: boolean;
    permittedSubtrees?: { type: number; value: string }[];
    unsupportedSubtreeRange?: boolean;
  } | null;
  const wanted = PERMITTED.map(({ tag, bytes }) => `${tag}:${bytes}`).sort();
  const found = (constraints?.permittedSubtrees ?? []).map(({ type, value }) => `${type}:${value}`).sort();
  if (!constraints?.critical || constraints.unsupportedSubtreeRange || found.join('\n') !== wanted.join('\n'))
    return 'it could vouch for any site: it has no critical name constraints limiting it to localhost, 127.0.0.0/8 and ::1';
  const basic = cert.getExtension('basicConstraints') as { cA?: boolean; pathLenConstraint?: number } | null;
  if (!basic?.cA || basic.pathLenConstraint !== 0) return 'it is not a CA limited to signing server certificates (path length 0)';
  if (cert.validity.notAfter.getTime() - cert.validity.notBefore.getTime() > CA_LIFETIME_MS + BACKDATE_MS)
    return 'it lasts longer than two years';
  return undefined;
}

/** True when the server certificate was signed by this CA and still names every local address. */
function signedFor(cert: string, ca: string): boolean {
  const server = new X509Certificate(cert);
  const authority = new X509Certificate(ca);
  return (
    server.checkIssued(authority) &&
    server.verify(authority.publicKey) &&
    SERVER_NAMES.dns.every((name) => server.checkHost(name) !== undefined) &&
    SERVER_NAMES.ip.every((ip) => server.checkIP(ip) !== undefined)
  );
}

/** Writes a file in one step (a temporary file renamed into place): a reader never sees half a PEM. */
function writeAtomically(path: string, text: string, mode: number): void {
  const temporary = `${path}.${process.pid}.tmp`;
  try {
    writeFileSync(temporary, text, { mode });
    renameSync(temporary, path);
  } finally {
    rmSync(temporary, { force: true });
  }
}

type PathOf = (name: keyof typeof FILES) => string;
type Files = Omit<LocalCa, 'caFile' | 'certFile' | 'keyFile'>;

/** The CA on disk when it is one to keep, else why not ('none' when there is no CA at all). */
function currentCa(path: PathOf): Pair | { problem: string } {
  const pair = readPair(path('ca'), path('caKey'));
  if ('problem' in pair)
    return { problem: pair.problem === `${path('ca')}: no such file` ? 'none' : `it cannot be read (${pair.problem})` };
  const problem = caProblem(pair);
  return problem === undefined ? pair : { problem };
}

/** The server certificate on disk when it is usable and was issued by `ca`; else undefined. */
function currentServer(path: PathOf, ca: Pair): Pair | undefined {
  const pair = readPair(path('cert'), path('key'));
  return !('problem' in pair) && pairProblem(pair, 'the server certificate') === undefined && signedFor(pair.cert, ca.cert)
    ? pair
    : undefined;
}

/** The files as they are, when all four are usable together; else undefined. */
function current(path: PathOf): Files | undefined {
  const ca = currentCa(path);
  if ('problem' in ca) return undefined;
  const server = currentServer(path, ca);
  return server ? { ca: ca.cert, ...server, newCa: undefined } : undefined;
}

/** Makes what must be: the CA when the one on disk is not to be kept (saying why), then a server certificate it signs. */
function renew(path: PathOf): Files {
  let ca = currentCa(path);
  let newCa: string | undefined;
  if ('problem' in ca) {
    newCa =
      ca.problem === 'none'
        ? `there was none in ${resolve(path('ca'), '..')}`
        : `the one in ${resolve(path('ca'), '..')} was not kept: ${ca.problem}`;
    ca = makeCa();
    writeAtomically(path('caKey'), ca.key, 0o600);
    writeAtomically(path('ca'), ca.cert, 0o644);
  }
  let server = newCa === undefined ? currentServer(path, ca) : undefined;
  if (!server) {
    server = makeServerCertificate(ca);
    writeAtomically(path('key'), server.key, 0o600);
    writeAtomically(path('cert'), server.cert, 0o644);
  }
  return { ca: ca.cert, ...server, newCa };
}
/** How long a start waits for another one that is making the files (parallel test workers) before taking over. */
const LOCK_WAIT_MS = 10_000;

/**
 * Runs `work` holding .sandbox/tls/.lock, so two sandboxes started at once in one folder never
 * write a CA and a server certificate of two different makings. A lock older than LOCK_WAIT_MS is
 * a killed start's and is taken over.
 */
function withLock<T>(folder: string, work: () => T): T {
  const lock = join(folder, '.lock');
  const deadline = Date.now() + LOCK_WAIT_MS;
  for (;;) {
    try {
      closeSync(openSync(lock, 'wx'));
      break;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      if (Date.now() > deadline) rmSync(lock, { force: true });
      // The other start takes a fraction of a second: a short blocking wait, as this runs once at start.
      else Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 50);
    }
  }
  try {
    return work();
  } finally {
    rmSync(lock, { force: true });
  }
}

/** The local CA and its server certificate under `dir` (default .sandbox/tls/), made or renewed as needed. */
export function localCa(dir: string = TLS_DIR): LocalCa {
  const folder = resolve(dir);
  const path: PathOf = (name) => join(folder, FILES[name]);
  ensureDirectory(folder);
  const files = current(path) ?? withLock(folder, () => current(path) ?? renew(path));
  return { caFile: path('ca'), certFile: path('cert'), keyFile: path('key'), ...files };
}
