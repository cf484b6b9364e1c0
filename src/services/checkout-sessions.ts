// Hosted checkout sessions (spec §4.4, 2.5): created by the merchant, paid once on the page at
// their URL, and ended by completion, by the expire call or by time (a job). Every ending
// publishes its event in the same transaction as the state change; an expiring session ends its
// payment still in flight (an Open iDEAL payment expires, a pending card challenge is cancelled).
// Payment attempts made on the page live in checkout-payments.ts; this module owns the session itself.
import { newId, newSecret, newToken } from '../domain/ids.js';
import { SandboxError, present } from '../errors.js';
import { refuseControlTarget } from './control-target.js';
import type { CheckoutSessionInput } from '../contracts/v1-checkout.js';
import type { CheckoutAttempt, CheckoutSession } from '../store/checkout-sessions-repo.js';
import type { CheckoutStatus } from '../domain/vocabularies.js';
import type { Merchant } from '../store/credentials-repo.js';
import type { ServiceDeps } from './deps.js';
import type { EventPublisher } from './event-publisher.js';
import type { JobRunner } from './job-runner.js';
import type { Payments } from './payments.js';
import type { Payment } from '../store/payments-repo.js';
import { toCheckoutSessionView } from '../views/checkout-session.js';
import { toPaymentView, type PaymentView } from '../views/payment.js';

/** Statuses in which a payment is still waiting for the customer or the acquirer. */
const IN_FLIGHT: ReadonlySet<string> = new Set(['processing', 'requires_action']);

/** The session use cases. */
export class CheckoutSessions {
  constructor(
    private readonly deps: ServiceDeps,
    private readonly jobs: JobRunner,
    private readonly events: EventPublisher,
    private readonly payments: Payments,
  ) {
    jobs.register('checkout.expire', (job) => {
      const session = deps.store.checkoutSessions.get(job.subjectId);
      if (session?.status === 'open') this.end(session, 'expired', null);
    });
  }

  /** Creates an open session for `merchant` and schedules its expiry. */
  create(merchant: Merchant, input: CheckoutSessionInput): CheckoutSession {
    refuseControlTarget(input.webhook_url, 'webhook_url', this.deps.config);
    const { store, clock } = this.deps;
    const now = clock.now();
    const session: CheckoutSession = {
      id: newId('cs'),
      merchantId: merchant.id,
      token: newToken(),
      csrf: newSecret(),
      status: 'open',
      amount: input.amount,
      currency: input.currency,
      methods: input.methods,
      logoUrl: input.branding?.logo_url ?? null,
      returnUrl: input.return_url,
      reference: input.reference ?? null,
      customerEmail: input.customer_email ?? null,
      webhookUrl: input.webhook_url ?? null,
      paymentId: null,
      lastPaymentId: null,
      attempt: {},
      expiresAt: now + input.expires_in * 1000,
      createdAt: now,
      updatedAt: now,
      completedAt: null,
    };
    store.tx(() => {
      store.checkoutSessions.insert(session);
      this.jobs.schedule('checkout.expire', session.id, session.expiresAt);
      this.events.publish({
        merchantId: session.merchantId,
        resourceId: session.id,
        status: { kind: 'session.updated', data: { id: session.id, status: 'open' } },
      });
    });
    return session;
  }

  /** The merchant's session; another merchant's is missing, exactly like an unknown id. */
  get(merchantId: string, id: string): CheckoutSession {
    const session = this.fresh(this.deps.store.checkoutSessions.get(id));
    if (!session || session.merchantId !== merchantId)
      throw new SandboxError('resource_missing', `no checkout session ${id}; use the id returned by POST /v1/checkout/sessions`, 'id');
    return session;
  }

  /** Ends an open session now (POST .../expire); 409 when it is already complete or expired. */
  expire(merchantId: string, id: string): CheckoutSession {
    return this.deps.store.tx(() => {
      const session = this.get(merchantId, id);
      if (session.status !== 'open')
        throw new SandboxError('invalid_state', `checkout session ${id} is already ${session.status}; only an open session can be expired`);
      this.end(session, 'expired', null);
      return present(this.deps.store.checkoutSessions.get(id), `checkout session ${id}`);
    });
  }

  /** The session behind a page token, expired first if its time ran out; undefined if unknown. */
  byToken(token: string): CheckoutSession | undefined {
    return this.fresh(this.deps.store.checkoutSessions.byToken(token));
  }

  /** The session whose latest page attempt is this payment. */
  byLastPayment(paymentId: string): CheckoutSession | undefined {
    return this.deps.store.checkoutSessions.byLastPayment(paymentId);
  }

  /** Records the page's latest payment attempt and step state; call inside store.tx. */
  recordAttempt(session: CheckoutSession, lastPaymentId: string | null, attempt: CheckoutAttempt): void {
    this.deps.store.checkoutSessions.setAttempt(session.id, lastPaymentId, attempt, this.deps.clock.now());
  }

  /** The session's latest payment attempt. */
  lastAttempt(session: CheckoutSession): Payment | undefined {
    return session.lastPaymentId ? this.deps.store.payments.get(session.lastPaymentId) : undefined;
  }

  /** Ends the latest attempt if it still waits for the customer: an Open iDEAL payment expires with its session; otherwise it is cancelled. */
  abandonAttempt(session: CheckoutSession, why: 'cancel' | 'expire'): void {
    const payment = this.lastAttempt(session);
    if (!payment || !IN_FLIGHT.has(payment.status) || payment.method === 'sepa') return;
    if (why === 'expire' && payment.method === 'ideal') this.payments.move(payment, 'expire');
    else this.payments.cancel(payment.merchantId, payment.id);
  }

  /** Completes an open session with its payment; call inside store.tx. False when it was not open. */
  complete(session: CheckoutSession, paymentId: string): boolean {
    return this.end(session, 'complete', paymentId);
  }

  /** The payment that completed the session, if one did. */
  paymentOf(session: CheckoutSession): Payment | undefined {
    return session.paymentId ? this.deps.store.payments.get(session.paymentId) : undefined;
  }

  /** Moves an open session to its final state and publishes the event, in one transaction. */
  private end(session: CheckoutSession, status: Exclude<CheckoutStatus, 'open'>, paymentId: string | null): boolean {
    const { store, clock } = this.deps;
    return store.tx(() => {
      if (status === 'expired' && store.checkoutSessions.get(session.id)?.status === 'open') this.abandonAttempt(session, 'expire');
      if (!store.checkoutSessions.finish(session.id, status, paymentId, clock.now())) return false;
      this.jobs.cancel('checkout.expire', session.id);
      const after = present(store.checkoutSessions.get(session.id), `checkout session ${session.id}`);
      const payment = paymentId ? this.paymentView(paymentId) : undefined;
      const data = { ...toCheckoutSessionView(after, this.deps.publicUrl.base, payment?.status), payment: payment ?? null };
      this.events.publish({
        merchantId: after.merchantId,
        resourceId: after.id,
        event: { type: status === 'complete' ? 'checkout.session.completed' : 'checkout.session.expired', data },
        webhook: after.webhookUrl ? { format: 'envelope', url: after.webhookUrl } : undefined,
        status: { kind: 'session.updated', data: { id: after.id, status } },
      });
      return true;
    });
  }

  /** A payment as the API shows it, for the session's events, which carry it whole. */
  private paymentView(paymentId: string): PaymentView | undefined {
    const payment = this.deps.store.payments.get(paymentId);
    return payment && toPaymentView(payment, this.payments.nextActionUrl(payment));
  }

  /** Expires a session whose time ran out before its job ran (the job may lag the clock), as of its expires_at. */
  private fresh(session: CheckoutSession | undefined): CheckoutSession | undefined {
    if (session?.status === 'open' && session.expiresAt <= this.deps.clock.now()) {
      this.deps.clock.asOf(session.expiresAt, () => this.end(session, 'expired', null));
      return this.deps.store.checkoutSessions.get(session.id);
    }
    return session;
  }
}
