// `sandbox settle` batches every captured, unsettled payment into settlements (one per merchant
// and currency), claws back refunds and lost chargebacks on payments settled earlier, and fires
// settlement.created, then settlement.paid after --pay-after of sandbox time; `sandbox settlements
// [id]` lists them or shows one with its payments and clawbacks.
import type { Command } from 'commander';
import kleur from 'kleur';
import { formatDecimalAmount } from '../domain/money.js';
import { orList, SETTLEMENT_STATUSES } from '../domain/vocabularies.js';
import { ControlClient, clientOptions, type ClientFlags } from './control-client.js';
import type { CliIo } from './io.js';
import { formatTable } from './table.js';
import type { ListView } from '../views/list.js';
import type { SettlementView } from '../views/settlement.js';
import { terminalJson } from './terminal-text.js';

const amount = (minor: number, currency: string) => `${minor < 0 ? '-' : ''}${formatDecimalAmount(Math.abs(minor), currency)}`;
const time = (iso: string | null) => (iso ? iso.replace('T', ' ').replace(/\.\d+Z$/, 'Z') : '-');

function summary(s: SettlementView): string {
  const c = s.currency;
  const payout = s.status === 'paid' ? kleur.green(`paid ${time(s.paid_at)}`) : kleur.yellow(`pays out ${time(s.pay_at)}`);
  return `${kleur.bold(s.id)}  ${s.merchant_id}  ${c}  ${s.count} payment${s.count === 1 ? '' : 's'}  gross ${amount(s.gross, c)}  fees ${amount(s.fees, c)}  refunds ${amount(s.refunds, c)}${s.adjustments ? `  clawbacks ${amount(s.adjustments, c)}` : ''}  net ${kleur.bold(amount(s.net, c))}  ${payout}`;
}

function detail(s: SettlementView): string {
  const c = s.currency;
  const rows = s.payments.map((p) => [p.family, p.id, amount(p.gross, c), amount(p.fee, c), amount(p.refunded, c), amount(p.net, c)]);
  const parts = [summary(s)];
  if (rows.length) parts.push('', formatTable(['FAMILY', 'PAYMENT', 'GROSS', 'FEE', 'REFUNDED', 'NET'], rows));
  const clawbacks = s.clawbacks.map((a) => [a.family, a.id, a.kind, a.chargeback_id ?? '-', amount(a.amount, c)]);
  if (clawbacks.length)
    parts.push(
      '',
      'clawbacks (refunds and lost chargebacks after an earlier payout):',
      formatTable(['FAMILY', 'PAYMENT', 'KIND', 'CHARGEBACK', 'AMOUNT'], clawbacks),
    );
  return parts.join('\n');
}

/** Adds `sandbox settle` and `sandbox settlements`. */
export function addSettleCommand(program: Command, io: CliIo): void {
  clientOptions(
    program
      .command('settle')
      .description(
        'batch captured payments into settlements with fees, clawing back later refunds and lost chargebacks (settlement.created, then settlement.paid)',
      ),
  )
    .option('--merchant <id>', 'only this merchant (default: every merchant)')
    .option('--currency <code>', 'only this currency (default: every currency)')
    .option('--pay-after <duration>', 'sandbox time until the payout, e.g. 2d, 1h, or 0s for at once', '2d')
    .action(async (flags: ClientFlags & { merchant?: string; currency?: string; payAfter: string }) => {
      const body: Record<string, unknown> = { pay_after: flags.payAfter };
      if (flags.merchant) body.merchant = flags.merchant;
      if (flags.currency) body.currency = flags.currency;
      const { data } = await new ControlClient(flags).post<ListView<SettlementView>>('/settlements', body);
      if (flags.json) return io.out(terminalJson(data, 2));
      if (data.length === 0)
        return io.out('nothing to settle: every captured payment is already in a settlement, and nothing is owed back');
      for (const s of data) io.out(summary(s));
    });

  clientOptions(program.command('settlements [id]').description('list settlements, or show one with its payments and clawbacks'))
    .option('--status <status>', orList(SETTLEMENT_STATUSES))
    .option('--limit <n>', 'at most this many', '50')
    .action(async (id: string | undefined, flags: ClientFlags & { status?: string; limit: string }) => {
      const client = new ControlClient(flags);
      if (id) {
        const s = await client.get<SettlementView>(`/settlements/${encodeURIComponent(id)}`);
        return io.out(flags.json ? terminalJson(s, 2) : detail(s));
      }
      const { data } = await client.get<ListView<SettlementView>>('/settlements', { status: flags.status, limit: flags.limit });
      if (flags.json) return io.out(terminalJson(data, 2));
      io.out(data.length ? data.map((s) => summary(s)).join('\n') : 'no settlements yet; run sandbox settle');
    });
}
