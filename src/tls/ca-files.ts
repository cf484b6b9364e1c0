// Where the local CA of `sandbox start --https` keeps its files: one folder under .sandbox/, read by
// the CA itself (local-ca.ts), by the deliveries that trust it (serving.ts) and named in the hint
// the CLI prints when a certificate is not trusted (untrusted.ts). Kept apart from local-ca.ts so
// reading a path never loads node-forge.
import { join } from 'node:path';
import { SANDBOX_DIR } from '../store/sandbox-dir.js';

/** The folder of the local CA, relative to the working directory. */
export const TLS_DIR = join(SANDBOX_DIR, 'tls');

/** The file names in TLS_DIR: the CA certificate merchants trust, its key, and the server certificate it signed. */
export const CA_FILES = { ca: 'ca.pem', caKey: 'ca-key.pem', cert: 'localhost.pem', key: 'localhost-key.pem' } as const;

/** The CA certificate to trust, relative to the working directory. */
export const LOCAL_CA_FILE = join(TLS_DIR, CA_FILES.ca);
