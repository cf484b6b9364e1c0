// What a sandbox started with --https serves, and which CAs its webhook deliveries trust.
import { X509Certificate } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Config } from '../config.js';
import { StartError } from './start-error.js';
import { SANDBOX_DIR } from '../store/sandbox-dir.js';

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
}

/** The local CA's certificate file, relative to the working directory (local-ca.ts makes it). */
const LOCAL_CA_FILE = join(SANDBOX_DIR, 'tls', 'ca.pem');

/** The certificate to serve: --cert/--key as given, else the local CA's (made at first start). */
export async function servingTls(config: Config): Promise<ServingTls | undefined> {
  if (config.https === undefined) return undefined;
  const own = config.https.certificate;
  if (own) return { cert: own.cert, key: own.key, certFile: resolve(own.certFile), caFile: undefined, ca: undefined };
  // Loaded only here: node-forge is needed once, at the start of an --https sandbox.
  const { localCa } = await import('../tls/local-ca.js');
  try {
    const made = localCa();
    return { cert: made.cert, key: made.key, certFile: made.certFile, caFile: made.caFile, ca: made.ca };
  } catch (err) {
    throw new StartError(`--https cannot make or read its certificate under ${resolve(SANDBOX_DIR, 'tls')}: ${(err as Error).message}`);
  }
}

/**
 * The CAs webhook deliveries trust besides Node's roots: each --webhook-ca, and the local CA when
 * there is one (this sandbox's, or one `sandbox receive --https` made), so a receiver with a
 * certificate from it needs no flag.
 */
export function deliveryCas(config: Config, tls: ServingTls | undefined): readonly string[] {
  let local = tls?.ca;
  if (local === undefined) {
    try {
      local = readFileSync(LOCAL_CA_FILE, 'utf8');
      new X509Certificate(local);
    } catch {
      // No local CA in this folder (or a broken one, which the next --https start makes again): only --webhook-ca's.
      local = undefined;
    }
  }
  return Object.freeze(local === undefined ? [...config.webhookCa] : [...config.webhookCa, local]);
}
