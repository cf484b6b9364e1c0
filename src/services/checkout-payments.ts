// Payment attempts made on the hosted checkout page. Each attempt is a /v1/ payment of the
// payments service (so its payment.* events fire as for any payment), tagged with
// metadata.checkout_session. The session completes when its payment is authorized (card, iDEAL
// Paid) or submitted (SEPA, which settles later); a declined, cancelled or expired attempt leaves
// the session open for another try. Every payment status change is signalled here, so a 3-D Secure
// challenge finished by the page, the control API or the clock completes the session alike.
import { declineMessage } from '../domain/outcomes.js';
import { idealBank, SEPA_RETURN_REASONS, sepaOutcome, type IdealOutcome, type SepaReturnCode } from '../domain/local-methods.js';
import { SandboxError, present } from '../errors.js';
import type { CardInput } from '../contracts/v1-tokens.js';
import type { CheckoutSession } from '../store/checkout-sessions-repo.js';
import type { CheckoutMethod } from '../domain/vocabularies.js';
import type { Payment } from '../store/payments-repo.js';
import type { CheckoutSessions } from './checkout-sessions.js';
import type { ServiceDeps } from './deps.js';
import type { JobRunner } from './job-runner.js';
import type { Payments } from './payments.js';
import type { Signals } from './signals.js';

/** The metadata key that ties a payment to its checkout session. */
export const SESSION_METADATA_KEY = 'checkout_session';

/** Where the customer goes after a card attempt: the merchant, the 3-D Secure page, or back to the form. */
export type CardAttemptResult = { next: 'complete' } | { next: 'authenticate'; url: string } | { next: 'retry'; payment: Payment };

/** The page's payment attempts. */
export class CheckoutPayments {
  constructor(
    private readonly deps: ServiceDeps,
    private readonly jobs: JobRunner,
    private readonly sessions: CheckoutSessions,
    private readonly payments: Payments,
    signals: Signals,
  ) {
    // A signal, not a call: the payments service is built before this one, which is built from it.
    signals.on('payment.status', (payment) => this.paymentChanged(payment));
    jobs.register('checkout.sepa_settle', (job) => this.settleSepa(job.subjectId, job.payload.result === 'fail', job.payload.returns));
    jobs.register('payment.return', (job) => this.returnSepa(job.subjectId, job.payload.code));
  }

  /** The session's latest attempt, for the page's notices. */
  lastAttempt(session: CheckoutSession): Payment | undefined {
    return this.sessions.lastAttempt(session);
  }

  /** Pays with a card; 3-D Secure comes back to /pay/<token>/return. */
  payCard(session: CheckoutSession, card: CardInput, holder: string): CardAttemptResult {
    const merchant = present(this.deps.store.credentials.merchant(session.merchantId), `merchant ${session.merchantId}`);
    return this.deps.store.tx(() => {
      this.startAttempt(session);
      const { payment } = this.payments.create(merchant, {
        amount: session.amount,
        currency: session.currency,
        method: 'card',
        routing: 'smart',
        card,
        customer: { name: holder, ...(session.customerEmail ? { email: session.customerEmail } : {}) },
        capture: true,
        initiator: 'customer',
        reference: session.reference ?? undefined,
        metadata: { [SESSION_METADATA_KEY]: session.id },
        return_url: `${this.deps.publicUrl.base}/pay/${session.token}/return`,
        webhook_url: session.webhookUrl ?? undefined,
      });
      this.sessions.recordAttempt(session, payment.id, {});
      const after = present(this.deps.store.checkoutSessions.get(session.id), `checkout session ${session.id}`);
      if (after.status === 'complete') return { next: 'complete' as const };
      const url = this.payments.nextActionUrl(payment);
      if (url) return { next: 'authenticate' as const, url };
      return { next: 'retry' as const, payment };
    });
  }

  /** Starts an iDEAL payment at the chosen bank; the bank's test page decides it. */
  chooseIdealBank(session: CheckoutSession, bic: string): Payment {
    const bank = idealBank(bic);
    if (!bank) throw new SandboxError('parameter_invalid', 'choose one of the listed banks', 'bank');
    return this.deps.store.tx(() => {
      this.startAttempt(session);
      const created = this.createLocal(session, 'ideal', bank.name, '');
      const waiting = this.payments.move(created, 'require_action');
      this.sessions.recordAttempt(session, waiting.id, { idealBank: bank.bic });
      return waiting;
    });
  }

  /** The open iDEAL payment the bank page decides, if the latest attempt is one. */
  openIdealPayment(session: CheckoutSession): Payment | undefined {
    const payment = this.lastAttempt(session);
    return payment?.method === 'ideal' && payment.status === 'requires_action' ? payment : undefined;
  }

  /** Applies the outcome picked on the iDEAL test bank page. */
  decideIdeal(session: CheckoutSession, outcome: IdealOutcome): Payment {
    return this.deps.store.tx(() => {
      const payment = this.openIdealPayment(session);
      if (!payment) throw new SandboxError('invalid_state', 'there is no open iDEAL payment on this session; choose a bank first');
      if (outcome === 'paid') this.approve(payment);
      else if (outcome === 'failed')
        this.payments.move(payment, 'decline', {
          declineCode: 'processing_error',
          failureMessage: 'processing_error: the bank refused the iDEAL payment',
        });
      else if (outcome === 'canceled') this.payments.move(payment, 'cancel');
      else if (outcome === 'expired') this.payments.move(payment, 'expire');
      return present(this.deps.store.payments.get(payment.id), `payment ${payment.id}`);
    });
  }

  /**
   * The dashboard's Approve / Decline of an iDEAL payment still open at the bank: what the customer
   * does by picking Paid or Failed on the bank page. Undefined when the payment is not an open iDEAL one.
   */
  decideOpenIdeal(paymentId: string, outcome: 'paid' | 'failed'): Payment | undefined {
    const last = this.sessions.byLastPayment(paymentId);
    // Through byToken, so a session whose time ran out is expired (with its payment) first.
    const session = last ? this.sessions.byToken(last.token) : undefined;
    if (session?.status !== 'open' || this.openIdealPayment(session)?.id !== paymentId) return undefined;
    return this.decideIdeal(session, outcome);
  }

  /** Submits a SEPA Direct Debit: the payment is processing, the session completes, the debit settles later. */
  paySepa(session: CheckoutSession, iban: string, holder: string): Payment {
    const outcome = sepaOutcome(iban, this.deps.config.sepaDelayMs);
    return this.deps.store.tx(() => {
      this.startAttempt(session);
      const payment = this.createLocal(session, 'sepa', 'SEPA', iban.slice(-4), holder);
      this.sessions.recordAttempt(session, payment.id, {});
      this.sessions.complete(session, payment.id);
      this.jobs.schedule('checkout.sepa_settle', payment.id, this.deps.clock.now() + outcome.afterMs, {
        result: outcome.result,
        ...(outcome.returns ? { returns: outcome.returns } : {}),
      });
      return payment;
    });
  }

  /** A new attempt replaces one still waiting (an iDEAL payment left Open): that one is cancelled. */
  private startAttempt(session: CheckoutSession): void {
    const current = present(this.deps.store.checkoutSessions.get(session.id), `checkout session ${session.id}`);
    if (current.status !== 'open') throw new SandboxError('invalid_state', `checkout session ${session.id} is ${current.status}`);
    this.sessions.abandonAttempt(current, 'cancel');
  }

  private createLocal(
    session: CheckoutSession,
    method: Exclude<CheckoutMethod, 'card'>,
    label: string,
    last4: string,
    holder?: string,
  ): Payment {
    const merchant = present(this.deps.store.credentials.merchant(session.merchantId), `merchant ${session.merchantId}`);
    return this.payments.createWithoutCard(merchant, {
      amount: session.amount,
      currency: session.currency,
      method,
      label,
      last4,
      customer: { ...(holder ? { name: holder } : {}), ...(session.customerEmail ? { email: session.customerEmail } : {}) },
      reference: session.reference,
      metadata: { [SESSION_METADATA_KEY]: session.id },
      webhookUrl: session.webhookUrl,
    });
  }

  /** Money moved: authorized, then captured at once (iDEAL and SEPA have no separate capture). */
  private approve(payment: Payment): void {
    const authorized = this.payments.move(payment, 'authorize');
    this.payments.move(authorized, 'capture', { amountCaptured: authorized.amount });
  }

  private settleSepa(paymentId: string, fails: boolean, returns?: { code: SepaReturnCode; afterMs: number }): void {
    const payment = this.deps.store.payments.get(paymentId);
    if (payment?.status !== 'processing') return;
    if (fails)
      this.payments.move(payment, 'decline', { declineCode: 'insufficient_funds', failureMessage: declineMessage('insufficient_funds') });
    else this.approve(payment);
    // The return test IBANs: collected now, sent back by the debtor's bank days later.
    if (!fails && returns) this.jobs.schedule('payment.return', paymentId, this.deps.clock.now() + returns.afterMs, { code: returns.code });
  }

  /** The payment.return job: the debtor's bank sends a collected debit back (payment.returned); a refunded or disputed one stays as it is. */
  private returnSepa(paymentId: string, code: SepaReturnCode): void {
    const payment = this.deps.store.payments.get(paymentId);
    if (payment?.status !== 'captured' && payment?.status !== 'partially_refunded') return;
    this.payments.move(payment, 'return', { returnReason: { code, message: SEPA_RETURN_REASONS[code] } });
  }

  /** After every payment status change (inside its transaction): an authorized attempt completes its open session. */
  private paymentChanged(payment: Payment): void {
    const sessionId = payment.metadata[SESSION_METADATA_KEY];
    if (!sessionId || payment.status !== 'authorized') return;
    const session = this.deps.store.checkoutSessions.get(sessionId);
    if (session?.status !== 'open') return;
    // Completing the session reads the payment from the store: a payment being created is written first.
    this.payments.written(payment.id);
    this.sessions.complete(session, payment.id);
  }
}
