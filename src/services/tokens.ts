// Card tokens: a merchant saves a card once (POST /v1/tokens, or a payment with setup_future_usage)
// and pays with tok_... later. The predefined test tokens (tok_visa, tok_threeds_required, ...) come
// from the TEST_CARDS table, so every merchant can use them; a merchant's own tokens are visible
// to that merchant only. A merchant's own token lives on in sandbox time: a customer-initiated
// payment stores it for off-session use, its next charges can be scripted, and its card ages
// (token.expiring 30 days before the end of its expiry month; a renewing card gets a new expiry
// and token.updated at that end).
import { cardBrand, expiryInPast, expiryMoment, maskCardNumber } from '../domain/card.js';
import { newId } from '../domain/ids.js';
import {
  agingOfCard,
  scriptForCard,
  TEST_CARDS,
  MAX_SCRIPTED_OUTCOMES,
  TOKEN_OUTCOMES,
  TOKEN_SOON_EXPIRY_DAYS,
  type ScriptedOutcome,
} from '../domain/outcomes.js';
import { SandboxError, present } from '../errors.js';
import type { CardInput } from '../contracts/v1-tokens.js';
import type { StoredToken } from '../store/tokens-repo.js';
import type { ServiceDeps } from './deps.js';
import type { EventPublisher } from './event-publisher.js';
import type { JobRunner } from './job-runner.js';
import type { ClockTrace } from './clock-trace.js';
import { toTokenEventData, type TokenExpiry } from '../views/event.js';

/** A card the API may use: what is shown, and the outcome its number scripts (the number itself is not kept). */
export interface ResolvedCard {
  brand: string;
  last4: string;
  expMonth: number;
  expYear: number;
  /** How the authentication page shows the card: first 6 and last 4 when the number is at hand, else the last 4. */
  masked: string;
  script: ScriptedOutcome;
}

/** A token as the API shows it, before formatting. */
export interface TokenRecord extends ResolvedCard {
  id: string;
  predefined: boolean;
  createdAt: number | null;
  /** The customer-initiated payment that stored it for off-session use (null until one was authorized, and for predefined tokens). */
  offSessionPaymentId: string | null;
  /** Scripted outcomes of its next charges, in order. */
  scriptedOutcomes: string[];
}

const PREDEFINED = new Map(TEST_CARDS.map((card) => [card.token, card.number]));

/** Years a predefined token stays valid after the sandbox clock's current year. */
const PREDEFINED_VALID_YEARS = 5;

/** Sandbox time before a card's expiry when token.expiring goes out. */
export const EXPIRING_NOTICE_MS = 30 * 86_400_000;

/** Years a renewing issuer adds to the expiry (the month stays). */
const RENEWAL_YEARS = 3;

/** What the sandbox keeps of a card number: its brand, last 4 and script. */
function fromNumber(number: string, expMonth: number, expYear: number): ResolvedCard {
  return {
    brand: cardBrand(number),
    last4: number.slice(-4),
    expMonth,
    expYear,
    masked: maskCardNumber(number),
    script: scriptForCard(number),
  };
}

/** Saves and resolves card tokens, and ages them. */
export class Tokens {
  constructor(
    private readonly deps: ServiceDeps,
    private readonly jobs: JobRunner,
    private readonly events: EventPublisher,
    private readonly trace?: ClockTrace,
  ) {
    jobs.register('token.expiring', (job) => this.expiring(job.subjectId, job.payload.exp_month, job.payload.exp_year));
    jobs.register('token.renew', (job) => this.renew(job.subjectId, job.payload.exp_month, job.payload.exp_year));
  }

  /** Checks a card from a request: 400 on card.exp_year when it has expired. */
  checkCard(card: CardInput): ResolvedCard {
    if (expiryInPast(card.exp_month, card.exp_year - 2000, this.deps.clock.now())) {
      throw new SandboxError(
        'parameter_invalid',
        `the card expired in ${String(card.exp_month).padStart(2, '0')}/${card.exp_year}; send an exp_month and exp_year that are not in the past, e.g. 12 and 2030`,
        'card.exp_year',
      );
    }
    return fromNumber(card.number, card.exp_month, card.exp_year);
  }

  /** Saves a card for `merchantId` and returns its token; schedules its aging. Inside or outside store.tx. */
  create(merchantId: string, card: CardInput): TokenRecord {
    const resolved = this.checkCard(card);
    const now = this.deps.clock.now();
    const ages = agingOfCard(card.number);
    // The aging test cards expire soon whatever was typed, so expiry needs no date arithmetic.
    const soon = new Date(now + TOKEN_SOON_EXPIRY_DAYS * 86_400_000);
    const expMonth = ages ? soon.getUTCMonth() + 1 : resolved.expMonth;
    const expYear = ages ? soon.getUTCFullYear() : resolved.expYear;
    const { brand, last4, script } = resolved;
    const stored: StoredToken = {
      id: newId('tok'),
      merchantId,
      brand,
      last4,
      expMonth,
      expYear,
      script,
      createdAt: now,
      offSessionPaymentId: null,
      scriptedOutcomes: [],
      renews: ages === 'renewed',
    };
    this.deps.store.tx(() => {
      this.deps.store.tokens.insert(stored);
      this.scheduleAging(stored);
    });
    return this.record(stored);
  }

  /** A predefined test token or one of the merchant's own; undefined otherwise (other merchants' included). */
  find(merchantId: string, id: string): TokenRecord | undefined {
    const number = PREDEFINED.get(id);
    if (number) {
      const expYear = new Date(this.deps.clock.now()).getUTCFullYear() + PREDEFINED_VALID_YEARS;
      return { id, ...fromNumber(number, 12, expYear), predefined: true, createdAt: null, offSessionPaymentId: null, scriptedOutcomes: [] };
    }
    const stored = this.deps.store.tokens.getForMerchant(id, merchantId);
    return stored && this.record(stored);
  }

  /** Like find, but a 404 naming `param` when there is no such token for this merchant. */
  get(merchantId: string, id: string, param = 'id'): TokenRecord {
    const token = this.find(merchantId, id);
    if (!token)
      throw new SandboxError(
        'resource_missing',
        `no token ${id}; use one returned by POST /v1/tokens or a test token such as tok_visa`,
        param,
      );
    return token;
  }

  /** True when the merchant's own token's card is past its expiry in sandbox time (predefined tokens never are). */
  expired(token: TokenRecord): boolean {
    return !token.predefined && this.deps.clock.now() >= expiryMoment(token.expMonth, token.expYear);
  }

  /** An authorized customer-initiated payment with setup_future_usage stored the token for off-session use; the first one stays. Inside store.tx. */
  storeForOffSession(tokenId: string, paymentId: string): void {
    this.deps.store.tokens.setOffSession(tokenId, paymentId);
  }

  /** Takes the next scripted outcome of a merchant's own token, if one waits; inside store.tx. */
  takeOutcome(tokenId: string): string | undefined {
    const token = this.deps.store.tokens.get(tokenId);
    const [next, ...rest] = token?.scriptedOutcomes ?? [];
    if (next === undefined) return undefined;
    this.deps.store.tokens.setOutcomes(tokenId, rest);
    this.trace?.outcomeTaken(next);
    return next;
  }

  /** The merchant's own token whose future is scripted; 404 naming `param` for a missing one or another merchant's, 400 for a predefined one. */
  scriptable(merchantId: string, id: string, param = 'id'): StoredToken {
    if (PREDEFINED.has(id)) {
      throw new SandboxError(
        'parameter_invalid',
        `${id} is a predefined test token that every merchant shares, so its charges cannot be scripted; save the card with POST /v1/tokens and script that token`,
        param,
      );
    }
    const stored = this.deps.store.tokens.getForMerchant(id, merchantId);
    if (!stored)
      throw new SandboxError(
        'resource_missing',
        `merchant ${merchantId} has no token ${id}; use a token that merchant saved (POST /v1/tokens with its API key), or name its merchant`,
        param,
      );
    return stored;
  }

  /** The merchant a script names, or the first of the fixtures; 404 naming merchant for an unknown one. */
  scriptMerchant(merchant: string | undefined): string {
    const { credentials } = this.deps.store;
    if (merchant === undefined) return present(credentials.merchants()[0], "the fixtures' first merchant").id;
    if (!credentials.merchant(merchant))
      throw new SandboxError('resource_missing', `no merchant ${merchant}; GET /_sandbox/merchants lists them`, 'merchant');
    return merchant;
  }

  /** Appends outcomes to what the token's next charges do; returns what now waits. */
  script(merchantId: string, id: string, outcomes: string[]): string[] {
    return this.deps.store.tx(() => {
      const token = this.scriptable(merchantId, id);
      const queued = [...token.scriptedOutcomes, ...outcomes];
      if (queued.length > MAX_SCRIPTED_OUTCOMES) {
        throw new SandboxError(
          'parameter_invalid',
          `token ${id} would have ${queued.length} scripted outcomes waiting; at most ${MAX_SCRIPTED_OUTCOMES} may wait (DELETE them first)`,
          'outcomes',
        );
      }
      this.deps.store.tokens.setOutcomes(id, queued);
      return queued;
    });
  }

  /** What the token's next charges are scripted to do. */
  scripted(merchantId: string, id: string): string[] {
    return this.scriptable(merchantId, id).scriptedOutcomes;
  }

  /** Drops the token's scripted outcomes; returns how many there were. */
  clearScript(merchantId: string, id: string): number {
    return this.deps.store.tx(() => {
      const token = this.scriptable(merchantId, id);
      this.deps.store.tokens.setOutcomes(id, []);
      return token.scriptedOutcomes.length;
    });
  }

  /** The words a token's script may hold. */
  get outcomes(): readonly string[] {
    return TOKEN_OUTCOMES;
  }

  private record(stored: StoredToken): TokenRecord {
    const { brand, last4, expMonth, expYear, script } = stored;
    return {
      id: stored.id,
      brand,
      last4,
      expMonth,
      expYear,
      masked: `•••• ${last4}`,
      script,
      predefined: false,
      createdAt: stored.createdAt,
      offSessionPaymentId: stored.offSessionPaymentId,
      scriptedOutcomes: stored.scriptedOutcomes,
    };
  }

  /** token.expiring 30 days before the card's expiry (at once when that is past), and a renewing card's renewal at it. */
  private scheduleAging(token: StoredToken): void {
    const end = expiryMoment(token.expMonth, token.expYear);
    const payload = { exp_month: token.expMonth, exp_year: token.expYear };
    this.jobs.schedule('token.expiring', token.id, Math.max(this.deps.clock.now(), end - EXPIRING_NOTICE_MS), payload);
    if (token.renews) this.jobs.schedule('token.renew', token.id, end, payload);
  }

  /** The token.expiring job: once per expiry, unless the card got another expiry since. */
  private expiring(id: string, month: number, year: number): void {
    const token = this.deps.store.tokens.get(id);
    if (!token || token.expMonth !== month || token.expYear !== year) return;
    this.publish(token, 'token.expiring');
  }

  /** The token.renew job: the issuer gives the card a new expiry; charges go on working. */
  private renew(id: string, month: number, year: number): void {
    const token = this.deps.store.tokens.get(id);
    if (!token || token.expMonth !== month || token.expYear !== year) return;
    const renewed: StoredToken = { ...token, expYear: token.expYear + RENEWAL_YEARS };
    this.deps.store.tokens.setExpiry(id, renewed.expMonth, renewed.expYear);
    this.publish(renewed, 'token.updated', { exp_month: month, exp_year: year });
    this.scheduleAging(renewed);
  }

  /** A token event: to the webhook_url of the payment that stored it for off-session use (if any) and the subscribed endpoints. */
  private publish(token: StoredToken, type: 'token.expiring' | 'token.updated', previous?: TokenExpiry): void {
    const setup = token.offSessionPaymentId ? this.deps.store.payments.get(token.offSessionPaymentId) : undefined;
    this.events.publish({
      merchantId: token.merchantId,
      resourceId: token.id,
      event: { type, data: toTokenEventData(token, previous) },
      webhook: setup?.webhookUrl ? { format: 'envelope', url: setup.webhookUrl } : undefined,
    });
  }
}
