// /v1/ payments: create one from a card, a token or the default test card; replay the card's
// scripted outcome (3-D Secure on the shared authentication page, approve or decline); capture,
// cancel, expire. Every status change goes through the payment-state table and publishes its
// event in the same transaction as the change.
import { urlWithQuery } from '../domain/http-url.js';
import { DECLINE_ADVICE, declineMessage, tokenOutcome, type DeclineCode, type ScriptedOutcome } from '../domain/outcomes.js';
import { formatDuration } from '../domain/duration.js';
import { nextPaymentState, PAYMENT_TRANSITIONS, type PaymentOperation, type PaymentState } from '../domain/payment-state.js';
import { SandboxError, present } from '../errors.js';
import { refuseControlTarget } from './control-target.js';
import type { CreatePaymentInput } from '../contracts/v1-payments.js';
import type { Challenge } from '../store/challenges-repo.js';
import type { Merchant } from '../store/credentials-repo.js';
import type { Payment, PaymentFilter } from '../store/payments-repo.js';
import type { Authentication, ChallengeSubject, Verdict } from './authentication.js';
import type { ServiceDeps } from './deps.js';
import type { Change, EventPublisher } from './event-publisher.js';
import type { JobRunner } from './job-runner.js';
import type { Signals } from './signals.js';
import type { ResolvedCard, TokenRecord, Tokens } from './tokens.js';
import type { ClockTrace } from './clock-trace.js';
import { newPayment, WITHOUT_CARD, type PaymentStart, type WithoutCardInput } from './new-payment.js';
import { readPage } from './pagination.js';
import type { Page } from '../views/list.js';
import { iso } from '../views/time.js';
import { toPaymentEventData, type NewEvent } from '../views/event.js';

/** The card used when a payment names neither card nor token (the payment spec §2.6 shows is authorized). */
export const DEFAULT_TEST_TOKEN = 'tok_visa';

/** A created payment: as it is now, and as the create request answers it. */
export interface PaymentCreated {
  payment: Payment;
  /** The payment as it stood when authorized (spec §2.6 answers `authorized`), or as it is now. */
  answer: Payment;
}

/** Fields of a payment a state change may also set. */
type Changes = Partial<Pick<Payment, 'amountCaptured' | 'amountRefunded' | 'declineCode' | 'failureMessage' | 'returnReason'>>;

/** The failure_message of an authorisation that lapsed uncaptured starts with this (the capture refusal reads it). */
export const LAPSED = 'authorization_expired';

/** The /v1/ payment use cases. */
export class Payments implements ChallengeSubject {
  /**
   * A new payment being created, its row not written yet: its moves change it in memory, and its
   * row is written once, as it ends up (or earlier, when a listener is about to read it: written()).
   */
  private unwritten: Payment | undefined;

  constructor(
    private readonly deps: ServiceDeps,
    private readonly auth: Authentication,
    private readonly events: EventPublisher,
    private readonly jobs: JobRunner,
    private readonly tokens: Tokens,
    /** Told of every status change ('payment.status'), inside its transaction: hosted checkout follows its payments. */
    private readonly signals: Signals,
    /** Records charges on stored tokens while a `clock advance --report` collects. */
    private readonly trace?: ClockTrace,
  ) {
    auth.registerSubject('payment', this);
    jobs.register('payment.lapse', (job) => this.lapse(job.subjectId));
  }

  /**
   * Creates a payment for `merchant`; `forcedScript` (X-Sandbox-Outcome, scenarios) wins over the
   * token's scripted outcomes, which win over the card. A merchant-initiated charge is never challenged.
   */
  create(merchant: Merchant, input: CreatePaymentInput, forcedScript?: ScriptedOutcome): PaymentCreated {
    refuseControlTarget(input.webhook_url, 'webhook_url', this.deps.config);
    const card: ResolvedCard = input.card
      ? this.tokens.checkCard(input.card)
      : this.tokens.get(merchant.id, input.token ?? DEFAULT_TEST_TOKEN, 'token');
    const stored = input.token === undefined ? undefined : (card as TokenRecord);
    if (input.setup_future_usage && stored?.predefined) {
      throw new SandboxError(
        'parameter_invalid',
        `${stored.id} is a predefined test token that every merchant shares, so it cannot be stored for off-session use; pay with card (and setup_future_usage) or with a token from POST /v1/tokens`,
        'token',
      );
    }
    if (input.initiator === 'merchant')
      this.refuseUnstored(present(stored, 'the token of a merchant-initiated charge (the contract requires one)'));
    const own = stored && !stored.predefined ? stored : undefined;
    if (!own) return this.deps.store.tx(() => this.createWith(merchant, input, card, forcedScript ?? card.script));
    const charge = () => ({
      kind: 'charge' as const,
      at: this.deps.clock.now(),
      paymentId: '',
      token: own.id,
      initiator: input.initiator,
      scriptedOutcome: null,
      events: [],
    });
    const run = () => this.deps.store.tx(() => this.createWith(merchant, input, card, this.tokenScript(own, forcedScript)));
    return this.trace ? this.trace.step(charge, run) : run();
  }

  /** What a charge on a merchant's own token does: an expired card declines; else the next scripted outcome, if one waits. Inside store.tx. */
  private tokenScript(token: TokenRecord, forcedScript: ScriptedOutcome | undefined): ScriptedOutcome {
    if (this.tokens.expired(token))
      return { ...token.script, challenge: false, authorisation: { result: 'decline', code: 'expired_card' } };
    if (forcedScript) return forcedScript;
    const taken = this.tokens.takeOutcome(token.id);
    return taken === undefined
      ? token.script
      : { ...token.script, authorisation: present(tokenOutcome(taken), `scripted outcome ${taken}`) };
  }

  /** A merchant-initiated charge needs a token a customer-initiated payment stored for off-session use. */
  private refuseUnstored(token: TokenRecord): void {
    if (token.offSessionPaymentId) return;
    const why = token.predefined
      ? `${token.id} is a predefined test token, which no customer-initiated payment can store`
      : `token ${token.id} never had an authorized customer-initiated payment with setup_future_usage "off_session"`;
    throw new SandboxError(
      'parameter_invalid',
      `initiator "merchant" charges a card the customer agreed to store for later, and ${why}; first pay with the customer present ("initiator": "customer", "setup_future_usage": "off_session"), then charge the token`,
      'initiator',
    );
  }

  private createWith(merchant: Merchant, input: CreatePaymentInput, card: ResolvedCard, chosen: ScriptedOutcome): PaymentCreated {
    // The customer authenticated at the customer-initiated payment: a merchant-initiated one is never challenged.
    const script = input.initiator === 'merchant' ? { ...chosen, challenge: false } : chosen;
    if (script.challenge && !input.return_url) {
      throw new SandboxError(
        'parameter_missing',
        'return_url is required when the card needs 3-D Secure: send the http(s) URL the customer comes back to, e.g. "https://shop.example/return"',
        'return_url',
      );
    }
    // A card paid with setup_future_usage is saved as a token of the merchant's, which the payment shows.
    const token = input.card && input.setup_future_usage ? this.tokens.create(merchant.id, input.card).id : (input.token ?? null);
    const start: PaymentStart = {
      merchantId: merchant.id,
      amount: input.amount,
      currency: input.currency,
      method: input.method,
      routing: input.routing,
      customer: Object.fromEntries(Object.entries(input.customer ?? {}).filter(([, v]) => v !== undefined)) as Record<string, string>,
      instrumentLabel: card.brand,
      cardLast4: card.last4,
      cardExpMonth: card.expMonth,
      cardExpYear: card.expYear,
      token,
      reference: input.reference ?? null,
      description: input.description ?? null,
      metadata: input.metadata ?? {},
      capture: input.capture,
      webhookUrl: input.webhook_url ?? null,
      returnUrl: input.return_url ?? null,
      initiator: input.initiator,
      setupFutureUsage: input.setup_future_usage ?? null,
      script,
    };
    const payment = newPayment(start, this.deps.clock.now());
    this.trace?.chargeIs(payment.id);
    // Inside the caller's store.tx. Its moves (to requires_action, or authorize then capture) change it
    // in memory; the row is written once, as it ends up: one INSERT where there were an INSERT and an UPDATE per move.
    this.unwritten = payment;
    try {
      const created = script.challenge ? this.requireAction(merchant, payment, card) : this.authorise(payment);
      this.written(payment.id);
      return created;
    } finally {
      this.unwritten = undefined;
    }
  }

  /** Inserts a payment without a card (hosted checkout's iDEAL and SEPA) in `processing`; the checkout page moves it on. Inside store.tx. */
  createWithoutCard(merchant: Merchant, input: WithoutCardInput): Payment {
    const { label, last4, ...fields } = input;
    // The card columns carry the method's label (bank name, "SEPA") and the IBAN's last four.
    const start = { ...fields, ...WITHOUT_CARD, merchantId: merchant.id, instrumentLabel: label, cardLast4: last4 };
    const payment = newPayment(start, this.deps.clock.now());
    this.deps.store.payments.insert(payment);
    return payment;
  }

  /** The merchant's payment; 404 for a missing id and for another merchant's alike. */
  get(merchantId: string, id: string, param = 'id'): Payment {
    const payment = this.deps.store.payments.getForMerchant(id, merchantId);
    if (!payment)
      throw new SandboxError('resource_missing', `no payment ${id}; use an id returned by POST /v1/payments with this API key`, param);
    return payment;
  }

  /** A payment of any merchant by its id (the control API's view). */
  byId(id: string): Payment | undefined {
    return this.deps.store.payments.get(id);
  }

  /** One page of the merchant's payments, newest first, and whether more follow. */
  list(filter: Omit<PaymentFilter, 'startingAfter' | 'limit'> & { limit: number; startingAfter?: string }): Page<Payment> {
    const startingAfter = filter.startingAfter ? this.get(filter.merchantId, filter.startingAfter, 'starting_after') : undefined;
    return readPage(filter.limit, (limit) => this.deps.store.payments.list({ ...filter, startingAfter, limit }));
  }

  /** The 3-D Secure page of a payment that requires action. */
  nextActionUrl(payment: Payment): string | undefined {
    if (payment.status !== 'requires_action') return undefined;
    const challenge = this.auth.forSubject('payment', payment.id);
    return challenge ? this.auth.url(challenge.token) : undefined;
  }

  /** Captures all or `amount` of an authorized payment; the rest of the authorization is released. */
  capture(merchantId: string, id: string, amount?: number): Payment {
    return this.deps.store.tx(() => {
      const payment = this.get(merchantId, id);
      if (payment.status === 'expired' && payment.failureMessage?.startsWith(LAPSED)) {
        throw new SandboxError(
          'authorization_expired',
          `payment ${payment.id} cannot be captured: ${payment.failureMessage.slice(LAPSED.length + 2)}, so the authorization was released on ${iso(payment.updatedAt)}; create a new payment`,
          'id',
        );
      }
      nextPaymentState(payment.id, payment.status, 'capture');
      const captured = amount ?? payment.amount;
      if (captured > payment.amount) {
        throw new SandboxError(
          'amount_too_large',
          `amount ${captured} is more than the ${payment.amount} ${payment.currency} minor units authorized; send an amount of at most ${payment.amount}`,
          'amount',
        );
      }
      return this.captureAuthorized(payment, captured);
    });
  }

  /** Cancels a payment that is not yet captured; an open authentication page is closed too. */
  cancel(merchantId: string, id: string): Payment {
    return this.deps.store.tx(() => {
      const found = this.get(merchantId, id);
      const open = found.status === 'requires_action' ? this.auth.forSubject('payment', found.id) : undefined;
      // find() expires a challenge whose time ran out, so the check below sees the real state.
      const challenge = open ? this.auth.find(open.token) : undefined;
      const payment = present(this.deps.store.payments.get(found.id), `payment ${found.id}`);
      nextPaymentState(payment.id, payment.status, 'cancel');
      // Completing the open challenge calls complete() below, which cancels the payment.
      if (challenge?.state === 'open') this.auth.complete(challenge.token, 'cancel');
      else this.move(payment, 'cancel');
      return present(this.deps.store.payments.get(payment.id), `payment ${payment.id}`);
    });
  }

  /** Moves a payment through the state table and publishes the row's event; inside store.tx. */
  move(payment: Payment, operation: PaymentOperation, changes: Changes = {}): Payment {
    const status: PaymentState = nextPaymentState(payment.id, payment.status, operation);
    const now = this.deps.clock.now();
    // Every decline carries the advice a merchant's retry logic reads.
    const adviceCode = changes.declineCode ? (DECLINE_ADVICE[changes.declineCode as DeclineCode] ?? null) : payment.adviceCode;
    const updated: Payment = { ...payment, ...changes, adviceCode, status, updatedAt: now };
    if (this.unwritten?.id === updated.id) this.unwritten = updated;
    else this.deps.store.payments.update(updated);
    const event = PAYMENT_TRANSITIONS[operation].event;
    // A move whose event another object carries (a refund, a chargeback) still shows on the stream.
    // The change named field by field, not spread and extended (CONTRIBUTING.md: literals on the request path).
    const change = event ? paymentEvent(updated, { type: event, data: toPaymentEventData(updated) }) : undefined;
    this.events.publish({
      merchantId: updated.merchantId,
      resourceId: updated.id,
      event: change?.event,
      webhook: change?.webhook,
      status: { kind: 'payment.updated', data: { payment_id: updated.id, status } },
    });
    this.signals.emit('payment.status', updated);
    if (status === 'authorized') this.authorized(updated);
    return updated;
  }

  /** An authorisation stores its token for off-session use when asked to, and lapses if it is left uncaptured. */
  private authorized(payment: Payment): void {
    if (payment.setupFutureUsage === 'off_session' && payment.token) this.tokens.storeForOffSession(payment.token, payment.id);
    if (!payment.capture) this.jobs.schedule('payment.lapse', payment.id, this.deps.clock.now() + this.deps.config.authorizationLifetimeMs);
  }

  /** The payment.lapse job: an authorisation still uncaptured when its lifetime ends expires (payment.expired). */
  private lapse(id: string): void {
    const payment = this.deps.store.payments.get(id);
    if (payment?.status !== 'authorized') return;
    const lifetime = formatDuration(this.deps.config.authorizationLifetimeMs);
    this.move(payment, 'lapse', { failureMessage: `${LAPSED}: it was not captured within ${lifetime} of its authorization` });
  }

  /**
   * Writes the row of the payment being created now, as it stands, when create() has not yet
   * (a listener of its status about to read it from the store); its later moves update it. Inside store.tx.
   */
  written(id: string): void {
    const payment = this.unwritten;
    if (payment?.id !== id) return;
    this.unwritten = undefined;
    this.deps.store.payments.insert(payment);
  }

  /** ChallengeSubject: the authentication page decided. */
  complete(challenge: Challenge, verdict: Verdict): void {
    const payment = present(this.deps.store.payments.get(challenge.subjectId), `payment ${challenge.subjectId}`);
    if (payment.status !== 'requires_action') return;
    if (verdict === 'pass') {
      this.authorise(payment);
      return;
    }
    if (verdict === 'fail') {
      this.move(payment, 'decline', { declineCode: 'authentication_failed', failureMessage: declineMessage('authentication_failed') });
      return;
    }
    this.move(payment, verdict === 'cancel' ? 'cancel' : 'expire');
  }

  /** ChallengeSubject: back to the merchant's return_url with payment_id and status (the result page if it is no URL). */
  returnUrl(challenge: Challenge): string {
    const payment = present(this.deps.store.payments.get(challenge.subjectId), `payment ${challenge.subjectId}`);
    return urlWithQuery(
      payment.returnUrl ?? challenge.returnUrl,
      { payment_id: payment.id, status: payment.status },
      this.auth.url(challenge.token),
    );
  }

  /** Moves a new payment to requires_action behind a 3-D Secure page; inside store.tx. */
  private requireAction(merchant: Merchant, payment: Payment, card: ResolvedCard): PaymentCreated {
    const waiting = this.move(payment, 'require_action');
    this.auth.open({
      subjectType: 'payment',
      subjectId: payment.id,
      merchantId: merchant.id,
      kind: 'otp',
      returnUrl: present(payment.returnUrl, 'return_url (create() requires it for 3-D Secure)'),
      details: {
        merchant: merchant.name,
        amount: String(payment.amount),
        currency: payment.currency,
        card: card.masked,
        brand: card.brand,
        reference: payment.reference ?? payment.id,
        ...(payment.description ? { product: payment.description } : {}),
      },
    });
    return { payment: waiting, answer: waiting };
  }

  /**
   * Applies the issuer's scripted answer; when capture is on, captures right after the
   * authorized event. Answers the payment as it stood once authorized (or declined), and as it is now.
   */
  private authorise(payment: Payment): PaymentCreated {
    const answer = payment.script.authorisation;
    if (answer.result === 'hang') return { payment, answer: payment };
    if (answer.result === 'decline') {
      const declined = this.move(payment, 'decline', { declineCode: answer.code, failureMessage: declineMessage(answer.code) });
      return { payment: declined, answer: declined };
    }
    const authorized = this.move(payment, 'authorize');
    return { payment: payment.capture ? this.captureAuthorized(authorized, authorized.amount) : authorized, answer: authorized };
  }

  private captureAuthorized(payment: Payment, amount: number): Payment {
    const captured = this.move(payment, 'capture', { amountCaptured: amount });
    // The chargebacks service handles chargeback.open for both families (S2S schedules it too).
    if (payment.script.chargeback)
      this.jobs.schedule('chargeback.open', payment.id, this.deps.clock.now() + this.deps.config.chargebackDelayMs, { family: 'v1' });
    return captured;
  }
}

/** The change announcing `type` about a payment: its event, to the payment's webhook_url (if any) and the subscribed endpoints. */
export function paymentEvent(payment: Payment, event: NewEvent): Change {
  return {
    merchantId: payment.merchantId,
    resourceId: payment.id,
    event,
    webhook: payment.webhookUrl ? { format: 'envelope', url: payment.webhookUrl } : undefined,
  };
}
