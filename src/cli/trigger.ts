// `sandbox trigger <event-type> [--payment ID] [--to URL] [--set field=value]...`: produces a
// realistic event of any docs/decisions.md type through the control API (real payments, refunds,
// chargebacks, settlements, checkout sessions behind it), optionally on an existing payment, with
// chosen fields, and delivered to a URL.
import type { Command } from 'commander';
import kleur from 'kleur';
import { triggerFieldLines } from '../domain/trigger-fields.js';
import { CliError } from './cli-error.js';
import { ControlClient, clientOptions, type ClientFlags } from './control-client.js';
import type { CliIo } from './io.js';
import type { TriggerResultView } from '../views/event.js';
import { terminalJson } from './terminal-text.js';

/** Adds `sandbox trigger`. */
export function addTriggerCommand(program: Command, io: CliIo): void {
  clientOptions(
    program
      .command('trigger <event-type>')
      .description('produce an event by driving the real services')
      .addHelpText(
        'after',
        `\nEvent types, and the fields --set chooses on the object each one makes (and with --payment):\n  ${triggerFieldLines().join('\n  ')}`,
      ),
  )
    .option('--payment <id>', 'use this /v1/ payment (pay_...) or S2S transID instead of a new payment, where its state allows')
    .option('--to <url>', 'also deliver the event to this URL (once, signed, never retried)')
    .option('--merchant <id>', 'whose new objects these are (default: the first merchant, mer_sandbox)')
    .option(
      '--set <field=value>',
      'a field of the request that makes the object (dotted for metadata.*, customer.*); the value is JSON when it parses as JSON, else text; repeatable',
      (pair: string, set: Record<string, unknown> = {}) => ({ ...set, ...setPair(pair) }),
    )
    .action(
      async (type: string, flags: ClientFlags & { payment?: string; to?: string; merchant?: string; set?: Record<string, unknown> }) => {
        const body: Record<string, unknown> = { type };
        if (flags.payment) body.payment_id = flags.payment;
        if (flags.to) body.to = flags.to;
        if (flags.merchant) body.merchant = flags.merchant;
        if (flags.set) body.set = flags.set;
        const result = await new ControlClient(flags).post<TriggerResultView>('/events/trigger', body);
        if (flags.json) return io.out(terminalJson(result, 2));
        const related = Object.entries(result.related)
          .map(([key, value]) => `${key} ${value}`)
          .join(', ');
        io.out(`triggered ${kleur.bold(result.type)} ${result.event.id} (${related})`);
        for (const e of result.events) {
          io.out(`  ${e.id === result.event.id ? kleur.green('*') : ' '} ${e.type.padEnd(28)} ${e.id}  ${kleur.dim(e.resource_id)}`);
        }
        if (result.delivery)
          io.out(`delivering ${result.event.id} to ${result.delivery.url} as ${result.delivery.id} (manual: tried once, never retried)`);
      },
    );
}

/** One --set: `field=value`, the value parsed as JSON when it is JSON (1500, true, "42", {...}), else kept as text. */
function setPair(pair: string): Record<string, unknown> {
  const at = pair.indexOf('=');
  if (at <= 0)
    throw new CliError(`--set takes field=value, e.g. --set amount=1500 or --set metadata.order_id=ord_42; got ${JSON.stringify(pair)}`);
  const text = pair.slice(at + 1);
  let value: unknown = text;
  try {
    value = JSON.parse(text);
  } catch {
    // Not JSON: the text itself, so --set reference=order-42 needs no quotes.
  }
  return { [pair.slice(0, at)]: value };
}
