// The TLS options of `sandbox start` (--https, --cert, --key, --webhook-ca), read and checked once
// at start: a file that is missing, is not a regular file of at most 1 MiB, is no PEM, a key that
// does not belong to its certificate, or a certificate outside its validity (expired, or not valid
// yet) stops the start with one line naming the flag, instead of a TLS error at the first request.
import { createPrivateKey, X509Certificate } from 'node:crypto';
import { errorMessage } from '../errors.js';
import { readPemFile, UnreadablePemFile } from './pem-file.js';

/** The merchant's own certificate (--cert, --key), e.g. one made by mkcert. */
export interface OwnCertificate {
  readonly certFile: string;
  readonly keyFile: string;
  /** PEM text of the certificate (and any chain after it) and of its private key. */
  readonly cert: string;
  readonly key: string;
}

/** How the sandbox serves: plain HTTP, TLS with the local CA's certificate, or TLS with the merchant's. */
export type HttpsSetting = { readonly certificate: OwnCertificate | undefined } | undefined;

/** One option as the user set it, and where from (flag, variable or default), for the error. */
export interface TlsOption<T> {
  value: T;
  from: string;
}

/** The TLS options as loadConfig hands them over. */
export interface TlsOptions {
  https: TlsOption<boolean | string | undefined>;
  cert: TlsOption<string | undefined>;
  key: TlsOption<string | undefined>;
  webhookCa: TlsOption<string | string[] | undefined>;
}

/** Refuses an option: the key (https, cert, key, webhookCa), where it came from, and why. */
export type Refuse = (key: 'https' | 'cert' | 'key' | 'webhookCa', from: string, message: string) => never;

/** A yes/no option: true, 1, false or 0 in a variable. */
export function switchValue(option: TlsOption<boolean | string | undefined>, key: 'https', refuse: Refuse): boolean {
  const { value, from } = option;
  if (value === undefined || typeof value === 'boolean') return value === true;
  if (!['1', 'true', '0', 'false'].includes(value)) refuse(key, from, `must be 1, true, 0 or false, got "${value}"`);
  return value === '1' || value === 'true';
}

/** The file's text, or a refusal that says why it cannot be read. */
function readText(path: string, key: 'cert' | 'key' | 'webhookCa', from: string, refuse: Refuse): string {
  try {
    return readPemFile(path);
  } catch (err) {
    if (!(err instanceof UnreadablePemFile)) throw err;
    return refuse(key, from, `cannot read "${path}": ${err.message}`);
  }
}

/** A refusal when `certificate` is outside its validity now: expired, or valid only from a later date. */
function checkValidity(certificate: X509Certificate, path: string, key: 'cert' | 'webhookCa', from: string, refuse: Refuse): void {
  const now = Date.now();
  if (Date.parse(certificate.validTo) <= now) refuse(key, from, `"${path}" expired (valid until ${certificate.validTo}); make a new one`);
  if (Date.parse(certificate.validFrom) > now)
    refuse(
      key,
      from,
      `"${path}" is not valid yet (valid from ${certificate.validFrom}; clients refuse it until then): make one valid from today, or check this machine's clock`,
    );
}

/** The certificate in `text`, or a refusal: not PEM, or PEM of something else. */
function certificateOf(text: string, path: string, key: 'cert' | 'webhookCa', from: string, refuse: Refuse): X509Certificate {
  if (!text.includes('-----BEGIN CERTIFICATE-----'))
    refuse(key, from, `"${path}" is not a PEM certificate: it has no -----BEGIN CERTIFICATE----- line`);
  try {
    return new X509Certificate(text);
  } catch (err) {
    return refuse(key, from, `"${path}" is not a readable PEM certificate: ${errorMessage(err)}`);
  }
}

/** --cert and --key: both or neither, each readable, the key the certificate's own, the certificate valid now. */
function ownCertificate(options: TlsOptions, refuse: Refuse): OwnCertificate | undefined {
  const { cert, key } = options;
  if (cert.value === undefined && key.value === undefined) return undefined;
  if (key.value === undefined) refuse('cert', cert.from, 'needs --key FILE too (or SANDBOX_TLS_KEY): the private key of that certificate');
  if (cert.value === undefined) refuse('key', key.from, 'needs --cert FILE too (or SANDBOX_TLS_CERT): the certificate of that key');
  const certText = readText(cert.value, 'cert', cert.from, refuse);
  const keyText = readText(key.value, 'key', key.from, refuse);
  const certificate = certificateOf(certText, cert.value, 'cert', cert.from, refuse);
  let privateKey: ReturnType<typeof createPrivateKey>;
  try {
    privateKey = createPrivateKey(keyText);
  } catch {
    return refuse(
      'key',
      key.from,
      `"${key.value}" is not a PEM private key (-----BEGIN PRIVATE KEY----- or -----BEGIN RSA/EC PRIVATE KEY-----)`,
    );
  }
  if (!certificate.checkPrivateKey(privateKey))
    refuse('key', key.from, `"${key.value}" is not the private key of the certificate in "${cert.value}" (${cert.from})`);
  checkValidity(certificate, cert.value, 'cert', cert.from, refuse);
  return Object.freeze({ certFile: cert.value, keyFile: key.value, cert: certText, key: keyText });
}

/** The paths of --webhook-ca (repeatable, or comma-separated in the variable). */
function caPaths(value: string | string[] | undefined): string[] {
  return [value ?? []]
    .flat()
    .flatMap((path) => String(path).split(','))
    .map((path) => path.trim())
    .filter((path) => path !== '');
}

/** The TLS part of the Config: how to serve, and the extra CAs webhook deliveries trust. */
export function tlsSettings(options: TlsOptions, refuse: Refuse): { https: HttpsSetting; webhookCa: readonly string[] } {
  const certificate = ownCertificate(options, refuse);
  // --cert/--key mean HTTPS; --https alone means the local CA's certificate.
  const https = certificate !== undefined || switchValue(options.https, 'https', refuse) ? Object.freeze({ certificate }) : undefined;
  const webhookCa = caPaths(options.webhookCa.value).map((path) => {
    const text = readText(path, 'webhookCa', options.webhookCa.from, refuse);
    checkValidity(
      certificateOf(text, path, 'webhookCa', options.webhookCa.from, refuse),
      path,
      'webhookCa',
      options.webhookCa.from,
      refuse,
    );
    return text;
  });
  return { https, webhookCa: Object.freeze(webhookCa) };
}
