// Card tokens: a merchant saves a card once (POST /v1/tokens) and pays with tok_... later. The
// predefined test tokens (tok_visa, tok_threeds_required, ...) come from the TEST_CARDS table,
// so every merchant can use them; a merchant's own tokens are visible to that merchant only.
import { cardBrand, expiryInPast } from '../domain/card.js';
import { newId } from '../domain/ids.js';
import { TEST_CARDS } from '../domain/outcomes.js';
import { SandboxError } from '../errors.js';
import type { CardInput } from '../http/schemas/v1-tokens.js';
import type { StoredToken } from '../store/tokens-repo.js';
import type { ServiceDeps } from './deps.js';

/** A card the API may use: the number (never shown), and what is shown. */
export interface ResolvedCard {
  number: string;
  brand: string;
  last4: string;
  expMonth: number;
  expYear: number;
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
    return { number: card.number, brand: cardBrand(card.number), last4: card.number.slice(-4), expMonth: card.exp_month, expYear: card.exp_year };
  }

  /** Saves a card for `merchantId` and returns its token. */
  create(merchantId: string, card: CardInput): TokenRecord {
    const resolved = this.checkCard(card);
    const stored: StoredToken = { id: newId('tok'), merchantId, ...resolved, createdAt: this.deps.clock.now() };
    this.deps.store.tokens.insert(stored);
    return { ...resolved, id: stored.id, predefined: false, createdAt: stored.createdAt };
  }

  /** A predefined test token or one of the merchant's own; undefined otherwise (other merchants' included). */
  find(merchantId: string, id: string): TokenRecord | undefined {
    const number = PREDEFINED.get(id);
    if (number) {
      const expYear = new Date(this.deps.clock.now()).getUTCFullYear() + PREDEFINED_VALID_YEARS;
      return { id, number, brand: cardBrand(number), last4: number.slice(-4), expMonth: 12, expYear, predefined: true, createdAt: null };
    }
    const stored = this.deps.store.tokens.getForMerchant(id, merchantId);
    return stored ? { id: stored.id, number: stored.number, brand: stored.brand, last4: stored.last4, expMonth: stored.expMonth, expYear: stored.expYear, predefined: false, createdAt: stored.createdAt } : undefined;
  }

  /** Like find, but a 404 naming `param` when there is no such token for this merchant. */
  get(merchantId: string, id: string, param = 'id'): TokenRecord {
    const token = this.find(merchantId, id);
    if (!token) throw new SandboxError('resource_missing', `no token ${id}; use one returned by POST /v1/tokens or a test token such as tok_visa`, param);
    return token;
  }
}
