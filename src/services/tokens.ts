// Card tokens: a merchant saves a card once (POST /v1/tokens) and pays with tok_... later. The
// predefined test tokens (tok_visa, tok_threeds_required, ...) come from the TEST_CARDS table,
// so every merchant can use them; a merchant's own tokens are visible to that merchant only.
import { cardBrand, expiryInPast, maskCardNumber } from '../domain/card.js';
import { newId } from '../domain/ids.js';
import { scriptForCard, TEST_CARDS, type ScriptedOutcome } from '../domain/outcomes.js';
import { SandboxError } from '../errors.js';
import type { CardInput } from '../contracts/v1-tokens.js';
import type { StoredToken } from '../store/tokens-repo.js';
import type { ServiceDeps } from './deps.js';

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
}

const PREDEFINED = new Map(TEST_CARDS.map((card) => [card.token, card.number]));

/** Years a predefined token stays valid after the sandbox clock's current year. */
const PREDEFINED_VALID_YEARS = 5;

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

/** Saves and resolves card tokens. */
export class Tokens {
  constructor(private readonly deps: ServiceDeps) {}

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

  /** Saves a card for `merchantId` and returns its token. */
  create(merchantId: string, card: CardInput): TokenRecord {
    const resolved = this.checkCard(card);
    const { brand, last4, expMonth, expYear, script } = resolved;
    const stored: StoredToken = { id: newId('tok'), merchantId, brand, last4, expMonth, expYear, script, createdAt: this.deps.clock.now() };
    this.deps.store.tokens.insert(stored);
    return { ...resolved, id: stored.id, predefined: false, createdAt: stored.createdAt };
  }

  /** A predefined test token or one of the merchant's own; undefined otherwise (other merchants' included). */
  find(merchantId: string, id: string): TokenRecord | undefined {
    const number = PREDEFINED.get(id);
    if (number) {
      const expYear = new Date(this.deps.clock.now()).getUTCFullYear() + PREDEFINED_VALID_YEARS;
      return { id, ...fromNumber(number, 12, expYear), predefined: true, createdAt: null };
    }
    const stored = this.deps.store.tokens.getForMerchant(id, merchantId);
    if (!stored) return undefined;
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
    };
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
}
