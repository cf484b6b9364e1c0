// A merchant's client of the bearer API, typed by the sandbox's own document: openapi-typescript
// turns GET /openapi.json into `paths`, and openapi-fetch checks every path, parameter, body and
// answer against it. tsconfig.json next to this file compiles it under --strict; a document that
// types an answer as unknown, or demands a body the route refuses, makes it fail to compile.
import createClient from 'openapi-fetch';
import type { components, paths } from '../../../test-artifacts/typed-client/paysandbox-api.js';

/** A client of one sandbox, authenticated with an sk_test_ key. */
export function paysandboxClient(baseUrl: string, apiKey: string) {
  return createClient<paths>({ baseUrl, headers: { authorization: `Bearer ${apiKey}` } });
}

/** The client type. */
export type PaysandboxClient = ReturnType<typeof paysandboxClient>;

/** The body of a successful answer, or an Error naming the call and the sandbox's message. */
function ok<T>(call: string, answer: { data?: T; error?: { error: { code: string; message: string } }; response: Response }): T {
  if (answer.data === undefined)
    throw new Error(
      `${call}: ${answer.response.status} ${answer.error ? `${answer.error.error.code}: ${answer.error.error.message}` : 'no body'}`,
    );
  return answer.data;
}

/** A payment as the document types it; this alias does not compile if the answer has no schema. */
export type Payment = paths['/v1/payments/{id}']['get']['responses'][200]['content']['application/json'];

/** A refund as the document types it. */
export type Refund = paths['/v1/refunds/{id}']['get']['responses'][200]['content']['application/json'];

/** What the payment flow got back, step by step. */
export interface PaymentFlow {
  created: Payment;
  captured: Payment;
  refund: Refund;
  canceled: Payment;
}

/** Authorizes 1050 EUR with the default test card, captures 600 of it, refunds 200, and cancels a second payment. */
export async function payCaptureRefund(client: PaysandboxClient, reference: string): Promise<PaymentFlow> {
  const created = ok(
    'create',
    await client.POST('/v1/payments', {
      body: { amount: 1050, currency: 'EUR', capture: false, reference, metadata: { order_id: reference } },
    }),
  );
  const captured = ok(
    'capture',
    await client.POST('/v1/payments/{id}/capture', { params: { path: { id: created.id } }, body: { amount: 600 } }),
  );
  const refund = ok(
    'refund',
    await client.POST('/v1/refunds', { body: { payment_id: captured.id, amount: 200, reason: 'requested_by_customer' } }),
  );
  // Cancel takes no body: the generated types let the call leave it out.
  const second = ok('create second', await client.POST('/v1/payments', { body: { amount: 700, currency: 'EUR', capture: false } }));
  const canceled = ok('cancel', await client.POST('/v1/payments/{id}/cancel', { params: { path: { id: second.id } } }));
  return { created, captured, refund, canceled };
}

/** Reads a payment as it is now. */
export async function showPayment(client: PaysandboxClient, id: string): Promise<Payment> {
  return ok('show', await client.GET('/v1/payments/{id}', { params: { path: { id } } }));
}

/** The names of the events about one payment, oldest first. */
export async function eventNames(client: PaysandboxClient, paymentId: string): Promise<string[]> {
  const list = ok('events', await client.GET('/v1/events', { params: { query: { resource_id: paymentId } } }));
  const names: string[] = list.data.map((event) => event.event);
  return names.reverse();
}

/** Opens a hosted checkout session for 2500 EUR (card or iDEAL) and reads it back. */
export async function openCheckout(client: PaysandboxClient, returnUrl: string) {
  const session = ok(
    'checkout',
    await client.POST('/v1/checkout/sessions', {
      body: { amount: 2500, currency: 'EUR', methods: ['card', 'ideal'], return_url: returnUrl },
    }),
  );
  const again = ok('checkout show', await client.GET('/v1/checkout/sessions/{id}', { params: { path: { id: session.id } } }));
  const methods: Array<'card' | 'ideal' | 'sepa'> = again.methods;
  return { id: session.id, url: session.url, status: again.status, methods, paymentId: again.payment_id };
}

/** An event as the document types it: GET /v1/events answers these, and every JSON webhook carries the same envelope. */
export type SandboxEvent = components['schemas']['Event'];

/**
 * What a payment.captured event says was captured. Narrowing on `event` picks the event name and
 * on `data.object` the family: a /v1/ payment's data types amount_captured as a number, an S2S
 * transaction's carries the spec's text fields (bill_amt), so neither is `unknown`.
 */
export function amountCaptured(event: SandboxEvent): number | undefined {
  if (event.event !== 'payment.captured') return undefined;
  if (event.data.object === 'payment') {
    const captured: number = event.data.amount_captured;
    return captured;
  }
  const billed: string = event.data.bill_amt;
  return Math.round(Number(billed) * 100);
}

/** The payment that completed a checkout session, from its checkout.session.completed event (typed as the Payment object). */
export function completedPayment(event: SandboxEvent): { id: string; amount_captured: number } | undefined {
  if (event.event !== 'checkout.session.completed' || event.data.payment === null) return undefined;
  const payment: Payment = event.data.payment;
  return { id: payment.id, amount_captured: payment.amount_captured };
}

/** The events about one payment, oldest first, as the document types them. */
export async function paymentEvents(client: PaysandboxClient, paymentId: string): Promise<SandboxEvent[]> {
  return ok('events', await client.GET('/v1/events', { params: { query: { resource_id: paymentId } } })).data.reverse();
}

/** What a renewal on a stored card came to, as the document types it. */
export interface Renewal {
  token: string;
  status: Payment['status'];
  initiator: 'customer' | 'merchant';
  advice: 'try_again_later' | 'do_not_try_again' | 'update_card' | null;
  scriptedLeft: string[];
}

/**
 * A subscription's first, customer-initiated payment stores the card (setup_future_usage); the
 * token's next charge is scripted to decline (the control API, in the same document); the
 * merchant-initiated renewal then reads its advice_code, typed as the three words, not a string.
 */
export async function declinedRenewal(client: PaysandboxClient, outcome: string): Promise<Renewal> {
  const first = ok(
    'subscribe',
    await client.POST('/v1/payments', {
      body: {
        amount: 999,
        currency: 'EUR',
        card: { number: '4242424242424242', exp_month: 12, exp_year: 2040, cvc: '123' },
        setup_future_usage: 'off_session',
      },
    }),
  );
  if (first.token === null) throw new Error(`the first payment stored no token: ${JSON.stringify(first)}`);
  const token: string = first.token;
  ok('script', await client.POST('/_sandbox/tokens/{id}/outcomes', { params: { path: { id: token } }, body: { outcomes: [outcome] } }));
  const renewal = ok('renew', await client.POST('/v1/payments', { body: { amount: 999, currency: 'EUR', token, initiator: 'merchant' } }));
  const left = ok('script left', await client.GET('/_sandbox/tokens/{id}/outcomes', { params: { path: { id: token } } }));
  return { token, status: renewal.status, initiator: renewal.initiator, advice: renewal.advice_code, scriptedLeft: left.outcomes };
}

/** When the saved card a token.* event is about stops working (narrowed on the event name, then on data.object). */
export function cardStopsAt(event: SandboxEvent): string | undefined {
  if (event.event !== 'token.expiring' && event.event !== 'token.updated') return undefined;
  if (event.data.object !== 'token') return undefined;
  const expires: string = event.data.expires_at;
  return expires;
}
