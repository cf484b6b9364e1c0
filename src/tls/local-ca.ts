// The local CA of `sandbox start --https`: a CA certificate made once under .sandbox/tls/ and a
// server certificate for localhost, 127.0.0.1 and ::1 signed by it, the way mkcert does it, so a
// merchant trusts one file (ca.pem) and every later start serves a certificate it already trusts.
// Both are reused while valid; an expired (or broken) server certificate is made again by the same
// CA, and only an expired or broken CA is replaced. node-forge builds the certificates (Node has
// no API to make one); the keys come from node:crypto.
import { createPrivateKey, generateKeyPairSync, randomBytes, X509Certificate } from 'node:crypto';
import { closeSync, openSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join, resolve } from 'node:path';
import forge from 'node-forge';
import { ensureDirectory } from '../store/sandbox-dir.js';
import { CA_FILES, TLS_DIR } from './ca-files.js';

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
}

const DAY_MS = 24 * 60 * 60 * 1000;
/** Ten years: the one file a merchant trusts should not change under them. */
const CA_LIFETIME_MS = 3650 * DAY_MS;
/** 825 days, as mkcert: the longest lifetime Apple's TLS stack accepts for a server certificate. */
const SERVER_LIFETIME_MS = 825 * DAY_MS;
/** A certificate this close to its end is made again now rather than expire during a run. */
const RENEW_BEFORE_MS = DAY_MS;
/** The names the server certificate covers: every way a local client reaches the sandbox. */
const SERVER_NAMES = { dns: ['localhost'], ip: ['127.0.0.1', '::1'] };

const FILES = CA_FILES;

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

function newCertificate(publicKeyPem: string, lifetimeMs: number): forge.pki.Certificate {
  const cert = forge.pki.createCertificate();
  cert.publicKey = forge.pki.publicKeyFromPem(publicKeyPem);
  cert.serialNumber = serialNumber();
  // An hour back: a client whose clock is a little behind must not see "not yet valid".
  cert.validity.notBefore = new Date(Date.now() - 60 * 60 * 1000);
  cert.validity.notAfter = new Date(Date.now() + lifetimeMs);
  return cert;
}

/** A self-signed CA that may sign server certificates only (path length 0). */
function makeCa(): { ca: string; caKey: string } {
  const keys = newKeyPair();
  const cert = newCertificate(keys.publicKey, CA_LIFETIME_MS);
  const name = [
    { name: 'commonName', value: `paysandbox local CA (${hostname()})` },
    { name: 'organizationName', value: 'paysandbox (development only)' },
  ];
  cert.setSubject(name);
  cert.setIssuer(name);
  cert.setExtensions([
    { name: 'basicConstraints', cA: true, pathLenConstraint: 0, critical: true },
    { name: 'keyUsage', keyCertSign: true, cRLSign: true, critical: true },
    { name: 'subjectKeyIdentifier' },
  ]);
  cert.sign(forge.pki.privateKeyFromPem(keys.privateKey), forge.md.sha256.create());
  return { ca: forge.pki.certificateToPem(cert), caKey: keys.privateKey };
}

/** A server certificate for localhost, 127.0.0.1 and ::1, signed by the CA. */
function makeServerCertificate(ca: string, caKey: string): { cert: string; key: string } {
  const keys = newKeyPair();
  const cert = newCertificate(keys.publicKey, SERVER_LIFETIME_MS);
  const caCert = forge.pki.certificateFromPem(ca);
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
  cert.sign(forge.pki.privateKeyFromPem(caKey), forge.md.sha256.create());
  return { cert: forge.pki.certificateToPem(cert), key: keys.privateKey };
}

/** The file's text, or undefined when it is missing or unreadable (then it is made again). */
function readIfThere(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return undefined;
  }
}

/** A certificate and its key, as PEM. */
interface Pair {
  cert: string;
  key: string;
}

/** The pair when `cert` is a certificate valid for at least another day whose key is `key`; else undefined. */
function usable(cert: string | undefined, key: string | undefined): Pair | undefined {
  if (cert === undefined || key === undefined) return undefined;
  try {
    const parsed = new X509Certificate(cert);
    return Date.parse(parsed.validTo) - Date.now() > RENEW_BEFORE_MS && parsed.checkPrivateKey(createPrivateKey(key))
      ? { cert, key }
      : undefined;
  } catch {
    return undefined;
  }
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

/** The files as they are, when all four are usable together; else undefined. */
function current(path: (name: keyof typeof FILES) => string): Omit<LocalCa, 'caFile' | 'certFile' | 'keyFile'> | undefined {
  const authority = usable(readIfThere(path('ca')), readIfThere(path('caKey')));
  const server = usable(readIfThere(path('cert')), readIfThere(path('key')));
  return authority && server && signedFor(server.cert, authority.cert) ? { ca: authority.cert, ...server } : undefined;
}

/** Makes what is missing or expired: the CA only when it must, then a server certificate it signs. */
function renew(path: (name: keyof typeof FILES) => string): Omit<LocalCa, 'caFile' | 'certFile' | 'keyFile'> {
  let authority = usable(readIfThere(path('ca')), readIfThere(path('caKey')));
  let server: Pair | undefined;
  if (authority) server = usable(readIfThere(path('cert')), readIfThere(path('key')));
  else {
    const made = makeCa();
    authority = { cert: made.ca, key: made.caKey };
    writeAtomically(path('caKey'), authority.key, 0o600);
    writeAtomically(path('ca'), authority.cert, 0o644);
  }
  if (!server || !signedFor(server.cert, authority.cert)) {
    server = makeServerCertificate(authority.cert, authority.key);
    writeAtomically(path('key'), server.key, 0o600);
    writeAtomically(path('cert'), server.cert, 0o644);
  }
  return { ca: authority.cert, ...server };
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
  const path = (name: keyof typeof FILES) => join(folder, FILES[name]);
  ensureDirectory(folder);
  const files = current(path) ?? withLock(folder, () => current(path) ?? renew(path));
  return { caFile: path('ca'), certFile: path('cert'), keyFile: path('key'), ...files };
}
