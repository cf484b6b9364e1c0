// The local CA of --https: made once, reused, a server certificate remade by the same CA when it
// nears its end (so the trusted ca.pem stays), and the CA itself replaced only when it expires (or
// is not one to keep: test/security/local-ca.test.ts).
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

  it('remakes the server certificate with the same CA a day before it expires: at validTo - 12 h, not at validTo - 36 h', () => {
    const { ca, cert } = localCa(dir);
    const validTo = Date.parse(new X509Certificate(cert).validTo);
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(validTo - 36 * 60 * 60 * 1000);
    expect(localCa(dir).cert).toBe(cert);
    vi.setSystemTime(validTo - 12 * 60 * 60 * 1000);
    const renewed = localCa(dir);
    expect(renewed.ca).toBe(ca);
    expect(renewed.newCa).toBeUndefined();
    expect(renewed.cert).not.toBe(cert);
    const fresh = new X509Certificate(renewed.cert);
    expect(Date.parse(fresh.validTo)).toBeGreaterThan(validTo);
    expect(fresh.checkIssued(new X509Certificate(ca)) && fresh.verify(new X509Certificate(ca).publicKey)).toBe(true);
  });

  it('replaces the CA a day before it expires, says so, and never makes a server certificate that outlives it', () => {
    const { ca } = localCa(dir);
    const caValidTo = Date.parse(new X509Certificate(ca).validTo);
    vi.useFakeTimers({ toFake: ['Date'] });
    // Two days before the CA ends: the server certificate made now ends with the CA, not 397 days later.
    vi.setSystemTime(caValidTo - 2 * DAY_MS);
    rmSync(join(dir, 'localhost.pem'));
    const late = localCa(dir);
    expect(late.ca).toBe(ca);
    expect(Date.parse(new X509Certificate(late.cert).validTo)).toBeLessThanOrEqual(caValidTo);
    vi.setSystemTime(caValidTo - 12 * 60 * 60 * 1000);
    const replaced = localCa(dir);
    expect(replaced.ca).not.toBe(ca);
    expect(replaced.newCa).toMatch(/was not kept: the CA certificate expires on .*, within a day/);
    expect(new X509Certificate(replaced.cert).checkIssued(new X509Certificate(replaced.ca))).toBe(true);
  });

  it('after ca.pem and ca-key.pem are replaced by another CA, the server certificate is one the new CA issued', () => {
    const before = localCa(dir);
    const other = localCa(join(dir, 'other'));
    writeFileSync(join(dir, 'ca.pem'), other.ca);
    writeFileSync(join(dir, 'ca-key.pem'), readFileSync(join(dir, 'other', 'ca-key.pem')));
    const after = localCa(dir);
    expect(after.ca).toBe(other.ca);
    expect(after.newCa).toBeUndefined();
    expect(after.cert).not.toBe(before.cert);
    const served = new X509Certificate(after.cert);
    expect(served.checkIssued(new X509Certificate(other.ca)) && served.verify(new X509Certificate(other.ca).publicKey)).toBe(true);
    expect(served.verify(new X509Certificate(before.ca).publicKey)).toBe(false);
  });
});
