// S2S payments (/api/s2s and /api/s2s/encrypt): create a transaction, decide its scripted
// outcome, open the challenge behind authurl, and finalise it with its webhook in one transaction.
import { expiryInPast, normaliseCardNumber } from '../domain/card.js';
import { urlWithQuery } from '../domain/http-url.js';
import { newTransId } from '../domain/ids.js';
import { ORDER_STATUS, statusText, type OrderStatusName } from '../domain/order-status.js';
import { canApply, s2sTransition } from '../domain/s2s-status.js';
import { declineMessage, scriptForCard, outcomeForVpa, DEFAULT_SCRIPT, type ScriptedOutcome } from '../domain/outcomes.js';
import { SandboxError, present } from '../errors.js';
import { refuseControlTarget } from './control-target.js';
import type { S2SPaymentInput } from '../contracts/s2s-schema.js';
import type { Challenge } from '../store/challenges-repo.js';
import type { ChallengeKind, Mop } from '../domain/vocabularies.js';
import type { Terminal } from '../store/credentials-repo.js';
import type { Transaction } from '../store/transactions-repo.js';
import { s2sWebhookFields } from '../views/webhook-body.js';
import type { TransactionEventType } from '../domain/event-types.js';
import type { Authentication, ChallengeSubject, Verdict } from './authentication.js';
import type { ServiceDeps } from './deps.js';
import type { Change, EventPublisher } from './event-publisher.js';
import type { JobRunner } from './job-runner.js';
import { newTransaction } from './new-transaction.js';

/** Who is asking, beyond the body: the connection's address and any forced script. */
export interface S2SRequestContext {
  billIp: string | null;
  /** Set by X-Sandbox-Outcome or a scenario; wins over the test-card table. */
  forcedScript?: ScriptedOutcome;
}

/** A created transaction and, when the customer must act, its challenge. */
export interface S2SCreated {
  transaction: Transaction;
  challenge: Challenge | undefined;
}

const CHALLENGE_KIND: Record<Mop, ChallengeKind> = {
  CC: 'otp',
  DC: 'otp',
  NB: 'bank',
  WALLET: 'wallet',
  UPICOLLECT: 'upi',
  QRINTENT: 'qr',
};

/** The S2S payment use cases. */
export class S2SPayments implements ChallengeSubject {
  constructor(
    private readonly deps: ServiceDeps,
    private readonly auth: Authentication,
    private readonly events: EventPublisher,
    private readonly jobs: JobRunner,
  ) {
    auth.registerSubject('transaction', this);
  }

  /** Creates a payment on `terminal` (already authenticated by public_key + terNO). */
  create(input: S2SPaymentInput, terminal: Terminal, ctx: S2SRequestContext): S2SCreated {
    refuseControlTarget(input.webhook_url, 'webhook_url', this.deps.config);
    const { store, clock } = this.deps;
    const now = clock.now();
    const number = cardNumber(input, now);
    const script = ctx.forcedScript ?? this.scriptFor(input, number);
    return store.tx(() => {
      const pending = newTransaction(input, { transId: newTransId(), terminal, billIp: ctx.billIp, number, script, now });
      if (script.challenge) {
        const transaction = this.insertNew(pending);
        this.events.publish(transactionChange(transaction));
        return { transaction, challenge: this.openChallenge(transaction, input) };
      }
      // Decided at once: the row is written once, as decided, instead of inserted Pending and then
      // updated (and read back); the stream still shows it Pending first.
      const answer = issuerAnswer(pending);
      const decided = answer ? this.decide(pending, answer.status, answer.response) : { transaction: pending, type: undefined };
      const transaction = this.insertNew(decided.transaction);
      this.events.publish(transactionChange({ ...pending, transId: transaction.transId }));
      if (decided.type) this.events.publish(transactionChange(transaction, decided.type));
      this.scheduleChargeback(transaction);
      return { transaction, challenge: undefined };
    });
  }

  /**
   * Inserts a new transaction. The unique (ter_no, reference) and trans_id keys are the checks: a
   * used reference is refused (refuseUsedReference), and a transID already stored (time-ordered
   * ids can meet an imported one or one from before a clock step back) is replaced by a new one.
   */
  private insertNew(transaction: Transaction): Transaction {
    for (let candidate = transaction; ; candidate = { ...candidate, transId: newTransId() }) {
      try {
        this.deps.store.transactions.insert(candidate);
        return candidate;
      } catch (err) {
        const code = (err as { code?: unknown }).code;
        if (code === 'SQLITE_CONSTRAINT_UNIQUE') this.refuseUsedReference(candidate.terNo, candidate.reference);
        if (code !== 'SQLITE_CONSTRAINT_PRIMARYKEY') throw err;
      }
    }
  }

  /** Refuses a reference already used on the terminal; most often a retry after an answer that never arrived, so it says where that payment's status is. */
  private refuseUsedReference(terNo: number, reference: string): void {
    const existing = this.deps.store.transactions.byReference(terNo, reference);
    if (!existing) return;
    const authstatus = `${this.deps.publicUrl.base}/api/s2s/status/${existing.statusToken}`;
    throw new SandboxError(
      'reference_in_use',
      `reference "${reference}" was already used on terminal ${terNo} by transID ${existing.transId}; if this is a retry of that payment, look it up at its authstatus URL ${authstatus} instead of creating it again; for a new payment send a new, unique order id`,
      'reference',
    );
  }

  /** Opens the page behind authurl where the customer authenticates or approves the transaction. */
  private openChallenge(transaction: Transaction, input: S2SPaymentInput): Challenge {
    const merchant = present(this.deps.store.credentials.merchant(transaction.merchantId), `merchant ${transaction.merchantId}`);
    return this.auth.open({
      subjectType: 'transaction',
      subjectId: transaction.transId,
      merchantId: merchant.id,
      kind: CHALLENGE_KIND[input.mop],
      returnUrl: input.return_url,
      lifetimeMs: input.mop === 'UPICOLLECT' ? this.deps.config.upiCollectWindowMs : undefined,
      details: {
        merchant: merchant.name,
        amount: String(transaction.amount),
        currency: input.bill_currency,
        card: transaction.ccno ?? '',
        brand: transaction.brand,
        reference: transaction.reference,
        product: input.product_name,
        ...(input.vpa ? { vpa: input.vpa } : {}),
        ...(input.bank ? { bank: input.bank } : {}),
      },
    });
  }

  /** The current state of a transaction by its authstatus token. */
  byStatusToken(token: string): Transaction | undefined {
    return this.deps.store.transactions.byStatusToken(token);
  }

  /** A transaction of any merchant by its transID (the control API's view). */
  byTransId(transId: string): Transaction | undefined {
    return this.deps.store.transactions.get(transId);
  }

  /** ChallengeSubject: a finished challenge decides the transaction. */
  complete(challenge: Challenge, verdict: Verdict): void {
    const transaction = present(this.deps.store.transactions.get(challenge.subjectId), `transaction ${challenge.subjectId}`);
    // Only a Pending transaction waits for its challenge; any other status is final for it.
    if (!canApply(transaction.orderStatus, 'approve')) return;
    if (verdict === 'pass') {
      this.authorise(transaction);
      return;
    }
    // A bank, wallet or UPI page is declined by the customer; only a card's 3-D Secure can fail.
    if (verdict === 'fail') {
      this.finalise(transaction, 'declined', declineMessage(challenge.kind === 'otp' ? 'authentication_failed' : 'declined_by_customer'));
      return;
    }
    if (verdict === 'cancel') {
      this.finalise(transaction, 'cancelled', 'Cancelled: the customer cancelled the authentication');
      return;
    }
    const late =
      challenge.kind === 'upi'
        ? 'did not approve the UPI collect request within the collect window'
        : 'did not complete authentication in time';
    this.finalise(transaction, 'expired', `Expired: the customer ${late}`);
  }

  /** ChallengeSubject: back to the merchant's return_url with transID, reference, status and order_status (docs/decisions.md; the result page if it is no URL). */
  returnUrl(challenge: Challenge): string {
    const t = present(this.deps.store.transactions.get(challenge.subjectId), `transaction ${challenge.subjectId}`);
    const query = { transID: t.transId, reference: t.reference, status: statusText(t.orderStatus), order_status: String(t.orderStatus) };
    return urlWithQuery(t.returnUrl, query, this.auth.url(challenge.token));
  }

  /** ChallengeSubject: the card that never answers keeps its page open forever. */
  neverExpires(challenge: Challenge): boolean {
    return this.deps.store.transactions.get(challenge.subjectId)?.script.authorisation.result === 'hang';
  }

  /** Applies the issuer's scripted answer once authentication is done. */
  private authorise(transaction: Transaction): void {
    const answer = issuerAnswer(transaction);
    if (!answer) return;
    this.finalise(transaction, answer.status, answer.response);
    this.scheduleChargeback({ ...transaction, orderStatus: ORDER_STATUS[answer.status].code });
  }

  /** Chargebacks open "shortly after" approval: --chargeback-delay (30 s) of sandbox time, or at once after `clock advance`. */
  private scheduleChargeback(transaction: Transaction): void {
    if (!transaction.script.chargeback || transaction.orderStatus !== ORDER_STATUS.approved.code) return;
    this.jobs.schedule('chargeback.open', transaction.transId, this.deps.clock.now() + this.deps.config.chargebackDelayMs, {
      family: 's2s',
    });
  }

  /** Moves a transaction to a status the S2S status table allows and queues its webhook, in the caller's transaction. */
  finalise(transaction: Transaction, status: OrderStatusName, response: string): void {
    const { transaction: next, type } = this.decide(transaction, status, response);
    this.deps.store.transactions.setStatus(next.transId, next.orderStatus, response, next.updatedAt);
    this.events.publish(transactionChange(next, type));
  }

  /** The transaction moved to `status` (refused unless the S2S status table allows it) and the event that announces it. */
  private decide(
    transaction: Transaction,
    status: OrderStatusName,
    response: string,
  ): { transaction: Transaction; type: TransactionEventType } {
    const type = s2sTransition(transaction.transId, transaction.orderStatus, status);
    const next = { ...transaction, orderStatus: ORDER_STATUS[status].code, response, updatedAt: this.deps.clock.now() };
    return { transaction: next, type };
  }

  private scriptFor(input: S2SPaymentInput, number: string | undefined): ScriptedOutcome {
    if (number) return scriptForCard(number);
    if (input.mop === 'UPICOLLECT') {
      const verdict = outcomeForVpa(present(input.vpa, 'vpa (the request schema requires it for UPICOLLECT)'));
      if (verdict === 'approve') return { ...DEFAULT_SCRIPT, challenge: false };
      if (verdict === 'decline')
        return { ...DEFAULT_SCRIPT, challenge: false, authorisation: { result: 'decline', code: 'declined_by_customer' } };
    }
    return DEFAULT_SCRIPT;
  }
}

/** The issuer's scripted answer for a transaction whose authentication is done or skipped; undefined while it hangs. */
function issuerAnswer(transaction: Transaction): { status: OrderStatusName; response: string } | undefined {
  const answer = transaction.script.authorisation;
  if (answer.result === 'hang') return undefined;
  if (answer.result === 'decline') return { status: 'declined', response: declineMessage(answer.code) };
  return { status: 'approved', response: 'Transaction approved (test mode)' };
}

/**
 * The change of a transaction as it is now: its status on the activity stream and, when `type` is
 * given, that event with the spec §6.1 fields, to its webhook_url and the subscribed endpoints.
 */
export function transactionChange(transaction: Transaction, type?: TransactionEventType): Change {
  return {
    merchantId: transaction.merchantId,
    resourceId: transaction.transId,
    event: type ? { type, data: s2sWebhookFields(transaction) } : undefined,
    webhook: { format: 's2s-form', url: transaction.webhookUrl, encryption: transaction.encryptionMethod, terNo: transaction.terNo },
    status: { kind: 'transaction.updated', data: { transID: transaction.transId, order_status: transaction.orderStatus } },
  };
}

/** The normalised number of a CC or DC payment's card; refuses a card whose expiry is past. */
function cardNumber(input: S2SPaymentInput, now: number): string | undefined {
  if (input.mop !== 'CC' && input.mop !== 'DC') return undefined;
  if (expiryInPast(Number(input.month), Number(input.year), now)) {
    throw new SandboxError(
      'parameter_invalid',
      `the card expired in ${input.month}/${input.year}; send a month and year that are not in the past, e.g. month "12" and year "30"`,
      'year',
    );
  }
  return normaliseCardNumber(present(input.ccno, 'ccno (the request schema requires it for a card)'));
}
