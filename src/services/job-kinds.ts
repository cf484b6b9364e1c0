// Every kind of timed job, with the payload its handler reads: the one list a service picks from
// when it schedules work for later. A new kind is a line here; JobRunner.schedule and register
// then type-check its name and payload.
import type { AuthenticationOutcome, PaymentFamily } from '../domain/vocabularies.js';
import type { SepaReturnCode } from '../domain/local-methods.js';

/** The payload of each job kind (most need only their subject id). */
export interface JobPayloads {
  /** A 3-D Secure / bank page challenge ran out of time (subject: challenge token). */
  'challenge.expire': Record<string, never>;
  /** --auto-authenticate completes a challenge by itself (subject: challenge token). */
  'challenge.auto': { outcome: AuthenticationOutcome };
  /** An S2S refund reaches its outcome (subject: refund id). */
  'refund.complete': Record<string, never>;
  /** A /v1/ refund reaches its outcome (subject: refund id). */
  'v1_refund.complete': Record<string, never>;
  /** The chargeback test card opens its chargeback (subject: transID or payment id). */
  'chargeback.open': { family: PaymentFamily };
  /** A checkout session ran out of time (subject: session id). */
  'checkout.expire': Record<string, never>;
  /** A submitted SEPA Direct Debit settles or fails (subject: payment id). */
  'checkout.sepa_settle': { result: 'succeed' | 'fail'; returns?: { code: SepaReturnCode; afterMs: number } };
  /** A settlement is paid out (subject: settlement id). */
  'settlement.pay': Record<string, never>;
  /** An authorisation made with capture: false lapses uncaptured (subject: payment id). */
  'payment.lapse': Record<string, never>;
  /** The debtor's bank returns a collected SEPA Direct Debit (subject: payment id; the SEPA reason code). */
  'payment.return': { code: SepaReturnCode };
  /** A saved card is 30 days from its expiry: token.expiring (subject: token id; the expiry it was scheduled for). */
  'token.expiring': { exp_month: number; exp_year: number };
  /** A renewing card reaches its expiry: the issuer renews it (subject: token id; the expiry it was scheduled for). */
  'token.renew': { exp_month: number; exp_year: number };
}

/** One job kind. */
export type JobKind = keyof JobPayloads;

/** A job as its handler receives it, with the payload of its kind. */
export interface JobOf<K extends JobKind> {
  id: number;
  kind: K;
  subjectId: string;
  dueAt: number;
  payload: JobPayloads[K];
}

/** The payload argument of schedule(): optional for kinds that carry none. */
export type PayloadArg<K extends JobKind> =
  Record<string, never> extends JobPayloads[K] ? [payload?: JobPayloads[K]] : [payload: JobPayloads[K]];
