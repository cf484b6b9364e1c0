// The TLS versions and cipher suites the sandbox offers, as a server (--https, `sandbox receive
// --https`) and as a client (webhook deliveries, `sandbox send`, the webhook audit): Mozilla's
// "intermediate" configuration (https://wiki.mozilla.org/Security/Server_Side_TLS), TLS 1.2 and
// 1.3 with forward secrecy and authenticated encryption only. Node's defaults also offer TLS 1.2
// suites without forward secrecy (AES128-GCM-SHA256) and with CBC (ECDHE-RSA-AES128-SHA256), which
// no client or receiver of today needs.
import type { SecureContextOptions } from 'node:tls';

/** TLS 1.3's suites (all of them), then TLS 1.2's ECDHE and DHE suites with AES-GCM or ChaCha20-Poly1305. */
const CIPHERS = [
  // Named here too: Node turns TLS 1.3 off when `ciphers` lists none of its suites.
  'TLS_AES_128_GCM_SHA256',
  'TLS_AES_256_GCM_SHA384',
  'TLS_CHACHA20_POLY1305_SHA256',
  'ECDHE-ECDSA-AES128-GCM-SHA256',
  'ECDHE-RSA-AES128-GCM-SHA256',
  'ECDHE-ECDSA-AES256-GCM-SHA384',
  'ECDHE-RSA-AES256-GCM-SHA384',
  'ECDHE-ECDSA-CHACHA20-POLY1305',
  'ECDHE-RSA-CHACHA20-POLY1305',
  'DHE-RSA-AES128-GCM-SHA256',
  'DHE-RSA-AES256-GCM-SHA384',
  'DHE-RSA-CHACHA20-POLY1305',
].join(':');

/** The options of every TLS server and client of the sandbox: TLS 1.2 or 1.3, the suites above. */
export const TLS_SUITES: Readonly<Pick<SecureContextOptions, 'minVersion' | 'ciphers'>> = Object.freeze({
  minVersion: 'TLSv1.2',
  ciphers: CIPHERS,
});
