// `sandbox tokens script TOKEN OUTCOME...` queues what the next charges on a merchant's own token
// do; `sandbox tokens show TOKEN` shows what is left; `sandbox tokens clear TOKEN` drops it. All
// over the control API (POST, GET and DELETE /_sandbox/tokens/{id}/outcomes).
import type { Command } from 'commander';
import { TOKEN_OUTCOMES } from '../domain/outcomes.js';
import { CliError } from './cli-error.js';
import { ControlClient, clientOptions, type ClientFlags } from './control-client.js';
import type { CliIo } from './io.js';
import type { TokenOutcomesView } from '../views/token-outcomes.js';

type TokenFlags = ClientFlags & { merchant?: string };

const MERCHANT_HELP = "the token's merchant (default: the first merchant of the fixtures, mer_sandbox)";

/** What waits, in words. */
function describe(view: TokenOutcomesView): string {
  if (view.outcomes.length === 0) return `token ${view.token} has no scripted outcomes: its card's own outcome applies`;
  return `token ${view.token}: the next ${view.outcomes.length === 1 ? 'charge' : `${view.outcomes.length} charges`} ${view.outcomes.join(', ')}; then its card's own outcome`;
}

/** Adds `sandbox tokens script|show|clear`. */
export function addTokensCommand(program: Command, io: CliIo): void {
  const tokens = program.command('tokens').description("script what the next charges on a saved token do (its merchant's own tokens)");
  const print = (flags: TokenFlags, view: TokenOutcomesView, lead = '') =>
    io.out(flags.json ? JSON.stringify(view, null, 2) : `${lead}${describe(view)}`);
  const path = (token: string) => `/tokens/${encodeURIComponent(token)}/outcomes`;

  clientOptions(
    tokens
      .command('script <token> <outcomes...>')
      .description(`queue what the next charges on the token do, one each: ${TOKEN_OUTCOMES.join(', ')}`)
      .addHelpText(
        'after',
        "\nExample: sandbox tokens script tok_... approve insufficient_funds\n  the next charge on the token approves, the one after declines insufficient_funds (advice_code\n  try_again_later); once the list is used up the card's own outcome applies. The outcomes are added\n  after those already waiting (sandbox tokens show lists them, sandbox tokens clear drops them).",
      ),
  )
    .option('--merchant <id>', MERCHANT_HELP)
    .action(async (token: string, outcomes: string[], flags: TokenFlags) => {
      const unknown = outcomes.find((word) => !TOKEN_OUTCOMES.includes(word));
      if (unknown !== undefined) throw new CliError(`outcome "${unknown}" is not one of ${TOKEN_OUTCOMES.join(', ')}`);
      const body = { outcomes, ...(flags.merchant ? { merchant: flags.merchant } : {}) };
      print(flags, await new ControlClient(flags).post<TokenOutcomesView>(path(token), body));
    });

  clientOptions(tokens.command('show <token>').description("what is left of the token's script"))
    .option('--merchant <id>', MERCHANT_HELP)
    .action(async (token: string, flags: TokenFlags) => {
      print(flags, await new ControlClient(flags).get<TokenOutcomesView>(path(token), { merchant: flags.merchant }));
    });

  clientOptions(tokens.command('clear <token>').description("drop the token's script: its card's own outcome applies again"))
    .option('--merchant <id>', MERCHANT_HELP)
    .action(async (token: string, flags: TokenFlags) => {
      const query = flags.merchant ? `?merchant=${encodeURIComponent(flags.merchant)}` : '';
      const view = await new ControlClient(flags).delete<TokenOutcomesView>(`${path(token)}${query}`);
      print(flags, view, `dropped ${view.removed ?? 0}; `);
    });
}
