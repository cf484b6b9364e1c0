// `sandbox chargeback <transID|payment-id>` opens a chargeback; `sandbox chargeback <id> --win`
// or `--lose` decides it (the id is the chargeback's dp_... or the transID / payment id of its
// open chargeback); `sandbox chargebacks` lists them. All over the control API.
import type { Command } from 'commander';
import kleur from 'kleur';
import { formatDecimalMoney } from '../domain/money.js';
import { CHARGEBACK_REASONS, CHARGEBACK_STATUSES, orList } from '../domain/vocabularies.js';
import { CliError } from './cli-error.js';
import { ControlClient, clientOptions, type ClientFlags } from './control-client.js';
import type { CliIo } from './io.js';
import { formatTable } from './table.js';
import type { ChargebackView } from '../views/chargeback.js';
import type { ListView } from '../views/list.js';
import { terminalJson } from './terminal-text.js';

type ChargebackFlags = ClientFlags & { reason?: string; amount?: string; win?: boolean; lose?: boolean };

const money = (cb: ChargebackView) => formatDecimalMoney(cb.amount, cb.currency);
const subject = (cb: ChargebackView) => (cb.family === 'v1' ? `payment ${cb.payment_id}` : `transaction ${cb.transID}`);

/** The open request for an id: pay_... is a /v1/ payment, digits are an S2S transID. */
function openBody(id: string, flags: ChargebackFlags): Record<string, unknown> {
  if (id.startsWith('dp_')) throw new CliError(`${id} is a chargeback already; add --win or --lose to decide it`);
  const body: Record<string, unknown> = id.startsWith('pay_') ? { payment_id: id } : /^\d+$/.test(id) ? { transID: id } : {};
  if (!body.payment_id && !body.transID) throw new CliError(`"${id}" is neither a /v1/ payment id (pay_...) nor an S2S transID (digits)`);
  if (flags.reason !== undefined) body.reason = flags.reason;
  if (flags.amount !== undefined) {
    if (!/^\d+$/.test(flags.amount))
      throw new CliError(`--amount is in minor units, a whole number such as 1050 for EUR 10.50; got "${flags.amount}"`);
    body.amount = Number(flags.amount);
  }
  return body;
}

/** Adds `sandbox chargeback` and `sandbox chargebacks`. */
export function addChargebackCommand(program: Command, io: CliIo): void {
  clientOptions(
    program
      .command('chargeback <id>')
      .description(
        'open a chargeback on an S2S transID or a /v1/ payment id; with --win / --lose, decide an open one (by dp_... or by the transID / payment id)',
      ),
  )
    .option('--reason <reason>', `why the cardholder disputes: ${CHARGEBACK_REASONS.join(', ')} (default fraudulent)`)
    .option('--amount <minor-units>', 'the disputed amount in minor units (default: all that is not refunded)')
    .option('--win', 'decide the open chargeback for the merchant (chargeback.won)')
    .option('--lose', 'decide the open chargeback for the cardholder (chargeback.lost)')
    .action(async (id: string, flags: ChargebackFlags) => {
      const client = new ControlClient(flags);
      if (flags.win && flags.lose) throw new CliError('pass --win or --lose, not both');
      if (flags.win || flags.lose) {
        if (flags.reason !== undefined || flags.amount !== undefined)
          throw new CliError('--reason and --amount are for opening a chargeback; leave them out with --win / --lose');
        const cb = await client.post<ChargebackView>(`/chargebacks/${encodeURIComponent(id)}/${flags.win ? 'win' : 'lose'}`);
        if (flags.json) return io.out(terminalJson(cb, 2));
        const outcome = cb.status === 'won' ? kleur.green('won') : kleur.red('lost');
        const after = cb.status === 'won' ? 'it is reinstated' : 'it stays charged back';
        return io.out(
          `chargeback ${kleur.bold(cb.id)} ${outcome}: ${money(cb)} on ${subject(cb)}; ${after} (chargeback.${cb.status} sent)`,
        );
      }
      const cb = await client.post<ChargebackView>('/chargebacks', openBody(id, flags));
      if (flags.json) return io.out(terminalJson(cb, 2));
      io.out(`chargeback ${kleur.bold(cb.id)} opened on ${subject(cb)}: ${money(cb)}, reason ${cb.reason} (chargeback.created sent)`);
      io.out(kleur.dim(`decide it with: sandbox chargeback ${cb.id} --win   (or --lose)`));
    });

  clientOptions(program.command('chargebacks').description('list chargebacks, newest first'))
    .option('--status <status>', orList(CHARGEBACK_STATUSES))
    .option('--payment <id>', 'only those of this transID or payment id')
    .option('--limit <n>', 'at most this many', '50')
    .action(async (flags: ClientFlags & { status?: string; payment?: string; limit: string }) => {
      const page = await new ControlClient(flags).get<ListView<ChargebackView>>('/chargebacks', {
        status: flags.status,
        payment: flags.payment,
        limit: flags.limit,
      });
      if (flags.json) return io.out(terminalJson(page.data, 2));
      if (page.data.length === 0) return io.out('no chargebacks match');
      io.out(
        formatTable(
          ['ID', 'FAMILY', 'PAYMENT', 'AMOUNT', 'REASON', 'STATUS', 'CREATED'],
          page.data.map((cb) => [cb.id, cb.family, cb.payment_id ?? cb.transID, money(cb), cb.reason, cb.status, cb.created_at]),
        ),
      );
    });
}
