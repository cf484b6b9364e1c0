// The /v1/ payment object every payment route answers with (and the control API's authenticate
// answer for a pay_... id).
import * as z from 'zod';
import { lazySchema } from '../lazy-schema.js';
import { PAYMENT_STATES } from '../domain/payment-state.js';
import { ROUTING_ACQUIRERS } from '../domain/routing.js';
import { CHECKOUT_METHODS, PAYMENT_INITIATORS } from '../domain/vocabularies.js';
import { ADVICE_CODES } from '../domain/outcomes.js';
import type { Payment } from '../store/payments-repo.js';
import { cardView } from './token.js';
import { iso, isoTime } from './time.js';

/** The payment object. */
export const paymentView = lazySchema(() =>
  z
    .object({
      id: z.string().describe('pay_...'),
      object: z.literal('payment'),
      status: z.enum(PAYMENT_STATES),
      amount: z.number().int().describe('minor units'),
      currency: z.string().describe('ISO 4217, upper case'),
      method: z.enum(CHECKOUT_METHODS).describe('card; ideal or sepa for payments made on the hosted checkout page'),
      routing: z.enum(Object.keys(ROUTING_ACQUIRERS) as ['smart', 'direct']),
      acquirer: z.string().describe('best_available (routing smart) or sandbox_acquirer (routing direct)'),
      capture: z.boolean(),
      amount_captured: z.number().int().describe('minor units'),
      amount_refunded: z.number().int().describe('minor units of refunds that succeeded'),
      card: cardView().nullable().describe('null for ideal and sepa payments'),
      method_details: z
        .object({ label: z.string(), last4: z.string() })
        .nullable()
        .describe('ideal and sepa payments: the bank (or SEPA) and the last four of the IBAN'),
      token: z.string().nullable(),
      customer: z.record(z.string(), z.string()),
      reference: z.string().nullable(),
      description: z.string().nullable(),
      metadata: z.record(z.string(), z.string()).describe('the flat map of strings the payment was created with'),
      decline_code: z.string().nullable().describe('why the payment was declined, e.g. insufficient_funds'),
      failure_message: z.string().nullable(),
      advice_code: z
        .enum(ADVICE_CODES)
        .nullable()
        .describe(
          'a declined payment: try_again_later (retry later), do_not_try_again (never retry this card) or update_card (ask for new details)',
        ),
      initiator: z.enum(PAYMENT_INITIATORS).describe('customer (present) or merchant (a charge on a stored token, never challenged)'),
      setup_future_usage: z
        .enum(['off_session'])
        .nullable()
        .describe('off_session: this payment stores its token for later merchant-initiated charges once authorized'),
      return_reason: z
        .object({ code: z.string().describe('the SEPA reason code, e.g. AM04'), message: z.string() })
        .nullable()
        .describe("a returned SEPA Direct Debit: why the debtor's bank sent the money back"),
      next_action: z
        .object({
          type: z.literal('redirect'),
          url: z.string().meta({ format: 'uri' }).describe('the 3-D Secure page to send the customer to'),
        })
        .nullable(),
      return_url: z.string().nullable(),
      webhook_url: z.string().nullable(),
      created_at: isoTime,
      updated_at: isoTime,
    })
    .meta({ id: 'Payment' }),
);

/** The payment object's TS type. */
export type PaymentView = z.infer<ReturnType<typeof paymentView>>;

/** The payment object; `nextActionUrl` is the 3-D Secure page while the payment waits on it (the payments service knows it). */
export function toPaymentView(payment: Payment, nextActionUrl: string | undefined): PaymentView {
  return {
    id: payment.id,
    object: 'payment',
    status: payment.status,
    amount: payment.amount,
    currency: payment.currency,
    method: payment.method as PaymentView['method'],
    routing: payment.routing as PaymentView['routing'],
    acquirer: payment.acquirer,
    capture: payment.capture,
    amount_captured: payment.amountCaptured,
    amount_refunded: payment.amountRefunded,
    card:
      payment.method === 'card'
        ? { brand: payment.instrumentLabel, last4: payment.cardLast4, exp_month: payment.cardExpMonth, exp_year: payment.cardExpYear }
        : null,
    // Hosted checkout's iDEAL and SEPA payments: the bank (or "SEPA") and the IBAN's last four.
    method_details: payment.method === 'card' ? null : { label: payment.instrumentLabel, last4: payment.cardLast4 },
    token: payment.token,
    customer: payment.customer,
    reference: payment.reference,
    description: payment.description,
    metadata: payment.metadata,
    decline_code: payment.declineCode,
    failure_message: payment.failureMessage,
    advice_code: payment.adviceCode,
    initiator: payment.initiator,
    setup_future_usage: payment.setupFutureUsage,
    return_reason: payment.returnReason,
    next_action: nextActionUrl ? { type: 'redirect', url: nextActionUrl } : null,
    return_url: payment.returnUrl,
    webhook_url: payment.webhookUrl,
    created_at: iso(payment.createdAt),
    updated_at: iso(payment.updatedAt),
  };
}
