// The prompts of the MCP server: whole rehearsals an agent runs with the tools, each a message that
// names the tools in order and what to check at each step.
import type * as z from 'zod';
import { promptArguments } from '../contracts/mcp-tools.js';

/** One prompt: its name, what it is for, its arguments, and the message it expands to. */
export interface McpPrompt {
  name: string;
  title: string;
  description: string;
  arguments: Array<{ name: keyof typeof promptArguments; required: boolean }>;
  message(args: Partial<Record<keyof typeof promptArguments, string>>): string;
}

const handler = (args: { webhook_url?: string }) => args.webhook_url ?? 'your webhook handler (ask for its URL)';

/** The description of a prompt argument, from its schema. */
export function argumentDescription(name: keyof typeof promptArguments): string {
  return (promptArguments[name] as z.ZodType).description ?? name;
}

/** Every prompt the server offers. */
export const MCP_PROMPTS: readonly McpPrompt[] = [
  {
    name: 'rehearse_failed_renewal',
    title: 'Rehearse a failed renewal',
    description:
      "Drive a subscription's renewal to a decline and check that the merchant's code dunned the customer and kept its books right",
    arguments: [{ name: 'webhook_url', required: false }],
    message: (args) =>
      [
        `Rehearse a failed subscription renewal against the payment sandbox, sending webhooks to ${handler(args)}.`,
        '1. create_merchant, so nothing you do touches another test.',
        '2. create_payment with that merchant, card 4000000000003220 (3-D Secure) and webhook_url, then authenticate it with outcome "approve": the first payment of the subscription.',
        "3. Make the renewal fail: take the token the merchant's code saved for the subscription (the payment's token, from setup_future_usage or POST /v1/tokens) and script_token it with outcomes [\"insufficient_funds\"]: the merchant's next renewal charge on it declines with advice_code try_again_later.",
        '4. advance_clock by the billing period (e.g. "30d"): read what the jump caused (the charges, the events, each delivery\'s first attempt).',
        '5. wait_for_delivery of payment.failed for that payment, then show_delivery: did the handler answer 2xx?',
        "6. Check the merchant's own state (its database, its e-mails) for the dunning it should start; say what you found.",
        '7. reset the merchant (and delete_merchant) when done.',
      ].join('\n'),
  },
  {
    name: 'why_was_my_webhook_rejected',
    title: 'Why was my webhook rejected',
    description: "Find why a webhook handler refuses the sandbox's deliveries (most often the signature check) and what to change",
    arguments: [
      { name: 'delivery_id', required: false },
      { name: 'webhook_url', required: false },
    ],
    message: (args) =>
      [
        `Find out why ${handler(args)} rejects webhooks from the payment sandbox${args.delivery_id ? `, starting with delivery ${args.delivery_id}` : ''}.`,
        `1. ${args.delivery_id ? `show_delivery ${args.delivery_id}` : 'list_deliveries with status "failed" (or the url), then show_delivery of the newest'}: read each attempt's answer and its signature_check diagnosis.`,
        '2. If the handler logged what it received, diagnose_signature with those headers, the raw body exactly as it read it and the secret it verified with: the cause says whether the body was re-serialised, the secret is wrong or trimmed, or the timestamp is stale.',
        "3. Fix the handler (verify the raw bytes, use the merchant's webhook secret), then replay_delivery the delivery and show_delivery again until it answers 2xx.",
        "4. audit_webhooks on the handler's URL to check the rest: forged, stale, tampered and duplicate deliveries.",
      ].join('\n'),
  },
  {
    name: 'prove_my_handler_is_idempotent',
    title: 'Prove my handler is idempotent',
    description: 'Send the same webhook twice (and out of order) and check the handler did the work once',
    arguments: [{ name: 'webhook_url', required: true }],
    message: (args) =>
      [
        `Prove that ${handler(args)} handles each webhook once, however often it comes.`,
        '1. create_merchant, then set_faults with spec "duplicate=2": every delivery is sent twice.',
        `2. create_payment with that merchant and webhook_url ${args.webhook_url ?? ''}, card 4242424242424242.`,
        '3. wait_for_delivery of payment.authorized for that payment, then list_deliveries for it: the same event id went out twice.',
        "4. Check the merchant's own state: one order paid, one e-mail, one ledger entry, not two.",
        '5. replay_delivery of that delivery for one more copy, and check again.',
        "6. audit_webhooks on the handler's URL: its duplicate and out-of-order cases must pass.",
        '7. clear_faults, reset the merchant and delete_merchant when done.',
      ].join('\n'),
  },
];
