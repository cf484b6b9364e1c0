// The local CA of --https: made once, reused, a server certificate remade by the same CA when it
// nears its end (so the trusted ca.pem stays), and the CA itself replaced only when it expires.
import { X509Certificate } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { localCa } from '../../src/tls/local-ca.js';

const DAY_MS = 24 * 60 * 60 * 1000;
const dir = mkdtempSync(join(tmpdir(), 'paysandbox-local-ca-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
afterEach(() => vi.useRealTimers());

describe('localCa()', () => {
  it('makes a CA and a server certificate for localhost, 127.0.0.1 and ::1 signed by it, keys readable by the owner only', () => {
    const made = localCa(dir);
    const ca = new X509Certificate(made.ca);
    const server = new X509Certificate(made.cert);
    expect(ca.ca).toBe(true);
    expect(server.ca).toBe(false);
    expect(server.checkIssued(ca) && server.verify(ca.publicKey)).toBe(true);
    expect([server.checkHost('localhost'), server.checkIP('127.0.0.1'), server.checkIP('::1')]).toEqual(['localhost', '127.0.0.1', '::1']);
    expect(statSync(join(dir, 'ca-key.pem')).mode & 0o077).toBe(0);
    expect(statSync(made.keyFile).mode & 0o077).toBe(0);
  });

  it('reuses both on the next start', () => {
    const first = readFileSync(join(dir, 'localhost.pem'), 'utf8');
    const again = localCa(dir);
    expect(again.cert).toBe(first);
  });

  it('remakes a broken server certificate with the same CA', () => {
    const ca = readFileSync(join(dir, 'ca.pem'), 'utf8');
    writeFileSync(join(dir, 'localhost.pem'), 'not a certificate');
    const again = localCa(dir);
    expect(again.ca).toBe(ca);
    expect(new X509Certificate(again.cert).checkIssued(new X509Certificate(ca))).toBe(true);
  });

  it('remakes the server certificate with the same CA when it nears its end, and the CA only when it expires', () => {
    const { ca, cert } = localCa(dir);
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(Date.now() + 825 * DAY_MS);
    const renewed = localCa(dir);
    expect(renewed.ca).toBe(ca);
    expect(renewed.cert).not.toBe(cert);
    vi.setSystemTime(Date.now() + 3650 * DAY_MS);
    const replaced = localCa(dir);
    expect(replaced.ca).not.toBe(ca);
    expect(new X509Certificate(replaced.cert).checkIssued(new X509Certificate(replaced.ca))).toBe(true);
  });
});
