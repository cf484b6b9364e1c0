// Certificates a test needs and the sandbox would never make: one valid only in the past or the
// future, one for client use only, one for another site signed with a CA's key, a CA without name
// constraints (what older sandboxes made). Built with node-forge (a dependency of the sandbox);
// keys from node:crypto.
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import forge from 'node-forge';

/** A certificate and its private key, as PEM. */
export interface PemPair {
  cert: string;
  key: string;
}

/** What to make: the names, the validity, what it is for, and who signs it (itself when no issuer). */
export interface CertificateSpec {
  /** DNS names and IP addresses in subjectAltName (default localhost, 127.0.0.1). */
  dns?: string[];
  ip?: string[];
  notBefore?: Date;
  notAfter?: Date;
  /** A CA certificate (basicConstraints cA) instead of a server one. */
  ca?: boolean;
  /** extKeyUsage: serverAuth (default) or clientAuth only. */
  use?: 'server' | 'client';
  issuer?: PemPair;
}

const DAY_MS = 24 * 60 * 60 * 1000;

/** A certificate as `spec` says, with a fresh RSA key. */
export function makeCertificate(spec: CertificateSpec = {}): PemPair {
  const keys = generateKeyPairSync('rsa', {
    modulusLength: 2048,
    publicKeyEncoding: { type: 'spki', format: 'pem' },
    privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
  });
  const cert = forge.pki.createCertificate();
  cert.publicKey = forge.pki.publicKeyFromPem(keys.publicKey);
  cert.serialNumber = `01${randomBytes(8).toString('hex')}`;
  cert.validity.notBefore = spec.notBefore ?? new Date(Date.now() - DAY_MS);
  cert.validity.notAfter = spec.notAfter ?? new Date(Date.now() + 30 * DAY_MS);
  const dns = spec.dns ?? ['localhost'];
  const subject = [{ name: 'commonName', value: spec.ca ? 'test CA' : (dns[0] ?? 'test') }];
  cert.setSubject(subject);
  const issuer = spec.issuer ? forge.pki.certificateFromPem(spec.issuer.cert) : undefined;
  cert.setIssuer(issuer ? issuer.subject.attributes : subject);
  cert.setExtensions(
    spec.ca
      ? [
          { name: 'basicConstraints', cA: true, critical: true },
          { name: 'keyUsage', keyCertSign: true, cRLSign: true, critical: true },
          { name: 'subjectKeyIdentifier' },
        ]
      : [
          { name: 'basicConstraints', cA: false },
          { name: 'keyUsage', digitalSignature: true, keyEncipherment: true, critical: true },
          spec.use === 'client' ? { name: 'extKeyUsage', clientAuth: true } : { name: 'extKeyUsage', serverAuth: true },
          {
            name: 'subjectAltName',
            altNames: [...dns.map((value) => ({ type: 2, value })), ...(spec.ip ?? ['127.0.0.1']).map((ip) => ({ type: 7, ip }))],
          },
        ],
  );
  cert.sign(forge.pki.privateKeyFromPem(spec.issuer?.key ?? keys.privateKey), forge.md.sha256.create());
  return { cert: forge.pki.certificateToPem(cert), key: keys.privateKey };
}
