// What a sandbox started with --https serves, and which CAs its webhook deliveries trust.
import { X509Certificate } from 'node:crypto';
import { resolve } from 'node:path';
import { StartError, errorMessage } from '../errors.js';
import { LOCAL_CA_FILE, TLS_DIR } from './ca-files.js';
import { readPemFile } from './pem-file.js';
import type { HttpsSetting } from './settings.js';

/** The certificate the sandbox serves, and where it is, for the banner. */
export interface ServingTls {
  /** PEM text. */
  readonly cert: string;
  readonly key: string;
  /** Absolute path of the certificate served. */
  readonly certFile: string;
  /** The local CA certificate to trust (absolute path and PEM); undefined with --cert/--key. */
  readonly caFile: string | undefined;
  readonly ca: string | undefined;
  /** Set when this start made a new local CA: why (the banner tells the user to trust it, again). */
  readonly newCa: string | undefined;
}

/** The certificate to serve: --cert/--key as given, else the local CA's (made at first start). */
export async function servingTls(https: HttpsSetting): Promise<ServingTls | undefined> {
  if (https === undefined) return undefined;
  const own = https.certificate;
  if (own) return { cert: own.cert, key: own.key, certFile: resolve(own.certFile), caFile: undefined, ca: undefined, newCa: undefined };
  // Loaded only here: node-forge is needed once, at the start of an --https sandbox.
  const { localCa } = await import('./local-ca.js');
  try {
    const made = localCa();
    return { cert: made.cert, key: made.key, certFile: made.certFile, caFile: made.caFile, ca: made.ca, newCa: made.newCa };
  } catch (err) {
    throw new StartError(`--https cannot make or read its certificate under ${resolve(TLS_DIR)}: ${errorMessage(err)}`);
  }
}

/**
 * The CAs webhook deliveries trust besides Node's roots: each --webhook-ca, and the local CA when
 * there is one (this sandbox's, or one `sandbox receive --https` made), so a receiver with a
 * certificate from it needs no flag.
 */
export function deliveryCas(webhookCa: readonly string[], tls: ServingTls | undefined): readonly string[] {
  let local = tls?.ca;
  if (local === undefined) {
    try {
      local = readPemFile(LOCAL_CA_FILE);
      new X509Certificate(local);
    } catch {
      // No local CA in this folder (or a broken one, a FIFO or a device, which the next --https start replaces): only --webhook-ca's.
      local = undefined;
    }
  }
  return Object.freeze(local === undefined ? [...webhookCa] : [...webhookCa, local]);
}
