// The local CA of --https as an attacker meets it. Its key is a file in the project, and users
// trust ca.pem in their browser: a certificate for another site signed with that key must be
// refused by openssl and by Node's TLS client (the CA is constrained to localhost, 127.0.0.0/8
// and ::1), the CA lasts two years, and a CA found on disk that is not such a CA (one of an older
// sandbox, committed into a cloned folder, broken, a FIFO) is not adopted: a new one is made and
// localCa() says why, for the banner.
import { execFile, execFileSync } from 'node:child_process';
import { X509Certificate } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:tls';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { localCa } from '../../src/tls/local-ca.js';
import { makeCertificate, type PemPair } from '../helpers/certificates.js';

const DAY_MS = 24 * 60 * 60 * 1000;
const root = mkdtempSync(join(tmpdir(), 'paysandbox-ca-security-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));
let folders = 0;
const folder = () => join(root, `tls-${++folders}`);

/** Runs openssl: its exit code and output. */
function openssl(args: string[]): Promise<{ code: number; out: string }> {
  return new Promise((resolve) => {
    execFile('openssl', args, { timeout: 20_000 }, (err, stdout, stderr) =>
      resolve({ code: err ? Number((err as { code?: number }).code ?? 1) : 0, out: stdout + stderr }),
    );
  });
}

/** A certificate for `dns` signed with the CA's key, as one who holds ca-key.pem would make it (openssl x509 -req). */
function signedWithCaKey(dir: string, dns: string): string {
  const csr = join(dir, `${dns}.csr`);
  const ext = join(dir, `${dns}.ext`);
  const out = join(dir, `${dns}.pem`);
  execFileSync(
    'openssl',
    ['req', '-new', '-newkey', 'rsa:2048', '-nodes', '-keyout', join(dir, `${dns}-key.pem`), '-subj', `/CN=${dns}`, '-out', csr],
    {
      stdio: 'ignore',
    },
  );
  writeFileSync(ext, `subjectAltName=DNS:${dns}\nextendedKeyUsage=serverAuth\n`);
  execFileSync(
    'openssl',
    [
      'x509',
      '-req',
      '-in',
      csr,
      '-CA',
      join(dir, 'ca.pem'),
      '-CAkey',
      join(dir, 'ca-key.pem'),
      '-CAcreateserial',
      '-days',
      '30',
      '-extfile',
      ext,
      '-out',
      out,
    ],
    { stdio: 'ignore' },
  );
  return out;
}

/** What Node's TLS client says when `pair` is served and it trusts `ca` only, asking for `servername`. */
async function nodeClientVerdict(pair: PemPair, ca: string, servername: string): Promise<string> {
  const server: Server = createServer({ cert: pair.cert, key: pair.key }, (_req, res) => res.end('ok'));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    return await new Promise<string>((resolve) => {
      const socket = connect({ host: '127.0.0.1', port: (server.address() as AddressInfo).port, servername, ca }, () => {
        resolve('trusted');
        socket.end();
      });
      socket.on('error', (err: NodeJS.ErrnoException) => resolve(`${err.code}: ${err.message}`));
    });
  } finally {
    server.close();
  }
}

describe('the local CA vouches for local names only', () => {
  const dir = folder();
  const made = localCa(dir);

  it('carries critical name constraints for localhost, 127.0.0.0/8 and ::1, and lasts two years at most', async () => {
    const text = await openssl(['x509', '-in', made.caFile, '-noout', '-text']);
    expect(text.code).toBe(0);
    expect(text.out).toMatch(
      /X509v3 Name Constraints: critical\s+Permitted:\s+DNS:localhost\s+IP:127\.0\.0\.0\/255\.0\.0\.0\s+IP:0:0:0:0:0:0:0:1\/FFFF:FFFF:FFFF:FFFF:FFFF:FFFF:FFFF:FFFF/,
    );
    const ca = new X509Certificate(made.ca);
    expect(Date.parse(ca.validTo) - Date.parse(ca.validFrom)).toBeLessThanOrEqual(731 * DAY_MS);
    expect(Date.parse(ca.validTo) - Date.now()).toBeGreaterThan(700 * DAY_MS);
  });

  it('openssl verify: its server certificate passes, a certificate for accounts.google.com signed with its key fails', async () => {
    const local = await openssl(['verify', '-CAfile', made.caFile, made.certFile]);
    expect(local.code, local.out).toBe(0);
    const forged = signedWithCaKey(dir, 'accounts.google.com');
    const verdict = await openssl(['verify', '-CAfile', made.caFile, forged]);
    expect(verdict.code).not.toBe(0);
    expect(verdict.out).toMatch(/permitted subtree violation/);
  });

  it("Node's TLS client that trusts ca.pem refuses accounts.google.com's forged certificate, and accepts localhost's", async () => {
    expect(await nodeClientVerdict({ cert: made.cert, key: made.key }, made.ca, 'localhost')).toBe('trusted');
    const forged = signedWithCaKey(dir, 'accounts.google.com');
    const pair = { cert: readFileSync(forged, 'utf8'), key: readFileSync(join(dir, 'accounts.google.com-key.pem'), 'utf8') };
    expect(await nodeClientVerdict(pair, made.ca, 'accounts.google.com')).toMatch(/permitted subtree violation/);
    // A CA without constraints (what the sandbox made before) has its forgery trusted: the refusal is the constraints' doing.
    const unconstrained = makeCertificate({ ca: true });
    const forgedByIt = makeCertificate({ dns: ['accounts.google.com'], ip: [], issuer: unconstrained });
    expect(await nodeClientVerdict(forgedByIt, unconstrained.cert, 'accounts.google.com')).toBe('trusted');
  });
});

describe('a CA found on disk', () => {
  it('is kept when it is the constrained CA this code made: no new CA, nothing said', () => {
    const dir = folder();
    const first = localCa(dir);
    expect(first.newCa).toMatch(/^there was none in /);
    const again = localCa(dir);
    expect(again.newCa).toBeUndefined();
    expect(again.ca).toBe(first.ca);
  });

  it('is replaced, saying why, when it has no name constraints (an older sandbox, or one committed into a cloned folder)', async () => {
    const dir = folder();
    mkdirSync(dir, { recursive: true });
    // What sandboxes before name constraints made: a CA valid ten years that could vouch for any site.
    const old = makeCertificate({ ca: true, notAfter: new Date(Date.now() + 3650 * DAY_MS) });
    writeFileSync(join(dir, 'ca.pem'), old.cert);
    writeFileSync(join(dir, 'ca-key.pem'), old.key);
    const made = localCa(dir);
    expect(made.newCa).toMatch(
      /was not kept: it could vouch for any site: it has no critical name constraints limiting it to localhost, 127\.0\.0\.0\/8 and ::1/,
    );
    expect(made.ca).not.toBe(old.cert);
    expect(readFileSync(join(dir, 'ca.pem'), 'utf8')).toBe(made.ca);
    // The server certificate served is the new CA's, and the old CA no longer vouches for it.
    expect((await openssl(['verify', '-CAfile', made.caFile, made.certFile])).code).toBe(0);
    writeFileSync(join(dir, 'old-ca.pem'), old.cert);
    expect((await openssl(['verify', '-CAfile', join(dir, 'old-ca.pem'), made.certFile])).code).not.toBe(0);
  });

  it('is replaced, saying why, when it is broken, when its key is another, and when it is a FIFO (no hang)', () => {
    const broken = folder();
    localCa(broken);
    writeFileSync(join(broken, 'ca.pem'), '-----BEGIN CERTIFICATE-----\nnot base64\n-----END CERTIFICATE-----\n');
    expect(localCa(broken).newCa).toMatch(/was not kept: the CA certificate is not a readable PEM certificate/);

    const otherKey = folder();
    localCa(otherKey);
    writeFileSync(join(otherKey, 'ca-key.pem'), makeCertificate().key);
    expect(localCa(otherKey).newCa).toMatch(/was not kept: its key file does not hold the key of the CA certificate/);

    const fifo = folder();
    mkdirSync(fifo, { recursive: true });
    execFileSync('mkfifo', [join(fifo, 'ca.pem')]);
    writeFileSync(join(fifo, 'ca-key.pem'), makeCertificate().key);
    expect(localCa(fifo).newCa).toMatch(
      /was not kept: it cannot be read \(.*ca\.pem: it is not a regular file \(a FIFO, a device or a socket\)/,
    );
    expect(new X509Certificate(readFileSync(join(fifo, 'ca.pem'), 'utf8')).ca).toBe(true);
  });

  /** A CA made by openssl with the local CA's constraints, valid `days`. */
  function opensslCa(dir: string, days: number): void {
    mkdirSync(dir, { recursive: true });
    execFileSync(
      'openssl',
      [
        ...['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', join(dir, 'ca-key.pem'), '-out', join(dir, 'ca.pem')],
        ...['-days', String(days), '-subj', '/CN=made by openssl'],
        ...['-addext', 'basicConstraints=critical,CA:TRUE,pathlen:0', '-addext', 'keyUsage=critical,keyCertSign,cRLSign'],
        '-addext',
        'nameConstraints=critical,permitted;DNS:localhost,permitted;IP:127.0.0.0/255.0.0.0,permitted;IP:::1/ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff',
      ],
      { stdio: 'ignore' },
    );
  }

  it('is kept when another tool made the same constrained CA, and replaced when it lasts longer than two years', () => {
    const kept = folder();
    opensslCa(kept, 700);
    const ca = readFileSync(join(kept, 'ca.pem'), 'utf8');
    const adopted = localCa(kept);
    expect(adopted.newCa).toBeUndefined();
    expect(adopted.ca).toBe(ca);
    expect(new X509Certificate(adopted.cert).checkIssued(new X509Certificate(ca))).toBe(true);

    const long = folder();
    opensslCa(long, 3650);
    expect(localCa(long).newCa).toMatch(/was not kept: it lasts longer than two years/);
  });
});
