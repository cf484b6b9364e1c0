// Telling a certificate this process does not trust apart from a sandbox that is not there: the
// CLI's clients (node:https, or fetch()) trust the local CA only with NODE_EXTRA_CA_CERTS.
import { LOCAL_CA_FILE } from './ca-files.js';

/** The line to print when an https:// sandbox's certificate is not trusted by this process. */
export const TRUST_HINT = `run the command with NODE_EXTRA_CA_CERTS set to the CA file the --https sandbox printed (${LOCAL_CA_FILE} in its folder)`;

/** True when a failed request met a TLS certificate it could not verify: something answered, over TLS (node:https's error has the code, fetch's its cause). */
export function isUntrustedCertificate(err: unknown): boolean {
  const failure = err as { code?: unknown; cause?: { code?: unknown } } | undefined;
  const code = failure?.code ?? failure?.cause?.code ?? '';
  return /^(UNABLE_TO_|SELF_SIGNED|DEPTH_ZERO|CERT_|ERR_TLS_CERT)/.test(String(code));
}
