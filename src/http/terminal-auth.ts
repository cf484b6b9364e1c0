// Terminal credentials of the /api/ family: public_key and terNO in the payload must name the
// same terminal (refund-request carries public_key alone). Compared in constant time so response
// timing reveals nothing about keys.
import { SandboxError } from '../errors.js';
import { safeEqual } from '../signatures/signing.js';
import type { Terminal } from '../store/credentials-repo.js';
import type { Services } from '../services/services.js';

/** The terminal that terNO and public_key identify; 401 when they do not match. */
export function authenticateTerminal(services: Services, terNo: number, publicKey: string): Terminal {
  const terminal = services.credentials.terminal(terNo);
  // Compare against a dummy when the terminal is unknown so both paths cost the same.
  const matches = safeEqual(terminal?.publicKey ?? 'pk_unknown_terminal_placeholder', publicKey);
  if (!terminal || !matches) {
    throw new SandboxError(
      'invalid_credentials',
      'terNO and public_key do not name the same terminal; copy both from the terminal settings (the start banner lists every seeded terminal; the default fixtures have terNO 1001 with public_key pk_test_1001)',
      'public_key',
    );
  }
  return terminal;
}

/** The terminal with this public_key, every key compared in constant time; 401 when none has it. */
export function terminalWithPublicKey(services: Services, publicKey: string): Terminal {
  let found: Terminal | undefined;
  for (const terminal of services.credentials.terminals()) if (safeEqual(terminal.publicKey, publicKey)) found = terminal;
  if (!found) {
    throw new SandboxError(
      'invalid_credentials',
      'public_key is not the public_key of any terminal; copy it from the terminal settings (the sandbox seeds pk_test_1001)',
      'public_key',
    );
  }
  return found;
}
