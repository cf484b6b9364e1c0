// A hosted checkout session as GET /v1/checkout/sessions/{id} (and the create answer and the
// session's events) show it.
import * as z from 'zod';
import { lazySchema } from '../lazy-schema.js';
import { CHECKOUT_METHODS, CHECKOUT_SESSION_STATUSES } from '../domain/vocabularies.js';
import type { CheckoutSession } from '../store/checkout-sessions-repo.js';
import { iso, isoOrNull, isoTime } from './time.js';

/** The session object. */
export const checkoutSessionView = lazySchema(() =>
  z
    .object({
      id: z.string().describe('cs_...'),
      object: z.literal('checkout.session'),
      url: z.string().describe('the hosted page: redirect the customer here; single-use, unguessable'),
      status: z.enum(CHECKOUT_SESSION_STATUSES),
      amount: z.number().int().describe('minor units'),
      currency: z.string(),
      methods: z.array(z.enum(CHECKOUT_METHODS)),
      branding: z.object({ logo_url: z.string().nullable() }),
      return_url: z.string(),
      reference: z.string().nullable(),
      customer_email: z.string().nullable(),
      webhook_url: z.string().nullable(),
      payment_id: z.string().nullable().describe('the payment that completed the session; null while open'),
      payment_status: z.string().nullable().describe('that payment\'s status now (a SEPA payment is "processing" before it settles)'),
      expires_at: isoTime.describe('ISO 8601 UTC; the session expires then unless completed'),
      created_at: isoTime,
      completed_at: isoTime.nullable().describe('ISO 8601 UTC when the customer paid; null until then and for an expired session'),
      expired_at: isoTime.nullable().describe('ISO 8601 UTC when the session expired (by time or by the expire call); null otherwise'),
    })
    .meta({ id: 'CheckoutSession' }),
);

/** The session object's TS type. */
export type CheckoutSessionView = z.infer<ReturnType<typeof checkoutSessionView>>;

/** The session; `baseUrl` is the sandbox's public URL, `paymentStatus` the status of its payment now (undefined when unknown). */
export function toCheckoutSessionView(session: CheckoutSession, baseUrl: string, paymentStatus: string | undefined): CheckoutSessionView {
  return {
    id: session.id,
    object: 'checkout.session',
    url: `${baseUrl}/pay/${session.token}`,
    status: session.status,
    amount: session.amount,
    currency: session.currency,
    methods: session.methods,
    branding: { logo_url: session.logoUrl },
    return_url: session.returnUrl,
    reference: session.reference,
    customer_email: session.customerEmail,
    webhook_url: session.webhookUrl,
    payment_id: session.paymentId,
    payment_status: session.paymentId ? (paymentStatus ?? null) : null,
    expires_at: iso(session.expiresAt),
    created_at: iso(session.createdAt),
    // completed_at is when the customer paid; an expired session was never completed.
    completed_at: session.status === 'complete' ? isoOrNull(session.completedAt) : null,
    expired_at: session.status === 'expired' ? isoOrNull(session.completedAt) : null,
  };
}
