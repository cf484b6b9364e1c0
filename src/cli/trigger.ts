// `sandbox trigger <event-type> [--payment ID] [--to URL]`: produces a realistic event of any
// docs/decisions.md type through the control API (real payments, refunds, chargebacks, settlements,
// checkout sessions behind it), optionally on an existing payment and delivered to a URL.
import type { Command } from 'commander';
import kleur from 'kleur';
import { EVENT_TYPE_NAMES } from '../domain/event-types.js';
import { ControlClient, clientOptions, type ClientFlags } from './control-client.js';
import type { CliIo } from './io.js';
import type { TriggerResultView } from '../views/event.js';

/** Adds `sandbox trigger`. */
export function addTriggerCommand(program: Command, io: CliIo): void {
  clientOptions(
    program
      .command('trigger <event-type>')
      .description('produce an event by driving the real services')
      .addHelpText('after', `\nEvent types:\n  ${EVENT_TYPE_NAMES.join('\n  ')}`),
  )
    .option('--payment <id>', 'use this /v1/ payment (pay_...) or S2S transID instead of a new payment, where its state allows')
    .option('--to <url>', 'also deliver the event to this URL (once, signed, never retried)')
    .option('--merchant <id>', 'whose new objects these are (default: the first merchant, mer_sandbox)')
    .action(async (type: string, flags: ClientFlags & { payment?: string; to?: string; merchant?: string }) => {
      const body: Record<string, unknown> = { type };
      if (flags.payment) body.payment_id = flags.payment;
      if (flags.to) body.to = flags.to;
      if (flags.merchant) body.merchant = flags.merchant;
      const result = await new ControlClient(flags).post<TriggerResultView>('/events/trigger', body);
      if (flags.json) return io.out(JSON.stringify(result, null, 2));
      const related = Object.entries(result.related)
        .map(([key, value]) => `${key} ${value}`)
        .join(', ');
      io.out(`triggered ${kleur.bold(result.type)} ${result.event.id} (${related})`);
      for (const e of result.events) {
        io.out(`  ${e.id === result.event.id ? kleur.green('*') : ' '} ${e.type.padEnd(28)} ${e.id}  ${kleur.dim(e.resource_id)}`);
      }
      if (result.delivery)
        io.out(`delivering ${result.event.id} to ${result.delivery.url} as ${result.delivery.id} (manual: tried once, never retried)`);
    });
}
