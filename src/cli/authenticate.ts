// `sandbox authenticate <transID|pay_id> <approve|decline|cancel|expire>`: completes the open
// 3-D Secure / bank challenge of an S2S transaction or a /v1/ payment without a browser, as the
// customer would on the authentication page, over the control API.
import type { Command } from 'commander';
import { AUTHENTICATION_OUTCOMES } from '../domain/vocabularies.js';
import { CliError } from './cli-error.js';
import { ControlClient, clientOptions, type ClientFlags } from './control-client.js';
import type { CliIo } from './io.js';
import type { AuthenticateResultView } from '../views/authentication.js';
import { terminalJson } from './terminal-text.js';

/** Adds `sandbox authenticate`. */
export function addAuthenticateCommand(program: Command, io: CliIo): void {
  clientOptions(
    program
      .command('authenticate <id> <outcome>')
      .description(
        `complete the open authentication of an S2S transID or a /v1/ payment id (pay_...): ${AUTHENTICATION_OUTCOMES.join(', ')}`,
      ),
  ).action(async (id: string, outcome: string, flags: ClientFlags) => {
    if (!(AUTHENTICATION_OUTCOMES as readonly string[]).includes(outcome))
      throw new CliError(`outcome must be one of ${AUTHENTICATION_OUTCOMES.join(', ')}; got "${outcome}"`);
    const result = await new ControlClient(flags).post<AuthenticateResultView>(`/transactions/${encodeURIComponent(id)}/authenticate`, {
      outcome,
    });
    if (flags.json) return io.out(terminalJson(result, 2));
    const now =
      'object' in result
        ? `payment ${result.id} is ${result.status}`
        : `transaction ${result.transID} is ${result.status} (order_status ${result.order_status})`;
    io.out(`authentication ${result.authentication}: ${now}; the customer returns to ${result.redirect_url}`);
  });
}
