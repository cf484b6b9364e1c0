// Merchants on demand: POST /_sandbox/merchants makes a fresh merchant with its own terminal, API
// key and webhook secret, so parallel test workers (one merchant each) never share references,
// lists, events or a reset. The fixtures' merchants are listed too but never change: they cannot
// be deleted, and a full reset restores exactly them. A merchant's state alone is cleared by
// reset(id); delete(id) removes a created merchant with every row it owns (store/merchant-rows.ts).
import { LAST_TER_NO, MERCHANT_PAGE, type CreateMerchantInput } from '../contracts/merchants.js';
import { newApiKey, newId } from '../domain/ids.js';
import { publicKeyClashText, publicKeysClash, PUBLIC_KEY_RULE } from '../domain/public-keys.js';
import { SandboxError } from '../errors.js';
import type { NewMerchant, Terminal } from '../store/credentials-repo.js';
import type { MerchantRecord } from '../store/merchant-records.js';
import type { RowCounts } from '../store/merchant-rows.js';
import type { Page } from '../views/list.js';
import type { ServiceDeps } from './deps.js';
import { readPage } from './pagination.js';
import type { Snapshot } from './snapshot/snapshot.js';
import { newSigningSecret } from './webhook-endpoints.js';
import type { FaultInjector } from '../faults/injector.js';

/** Terminal numbers of created merchants start here, clear of the fixtures' (1001, 2002). */
export const FIRST_CREATED_TER_NO = 9001;
/** A merchant with all its credentials (store/merchant-records.ts). */
export type { MerchantRecord };

/** The merchant use cases. */
export class Merchants {
  constructor(
    private readonly deps: ServiceDeps,
    private readonly snapshot: Snapshot,
    private readonly faults: FaultInjector,
  ) {}

  /** Makes a merchant with one terminal (or the given ones), an API key and a webhook secret. */
  create(input: CreateMerchantInput = {}): MerchantRecord {
    const { store } = this.deps;
    // In a transaction of its own, and remembered by the credentials repository only once
    // committed: a shared batch failing later would leave a merchant in memory that the database
    // never got.
    let merchant: NewMerchant;
    try {
      merchant = store.batch.alone(() => this.insert(input));
    } catch (err) {
      store.credentials.forget();
      throw err;
    }
    store.credentials.added(merchant);
    this.deps.logger.info(`merchant ${merchant.id} created`);
    return this.get(merchant.id);
  }

  /** One page of merchants, seeded ones first, in the order they were made. */
  list(query: { limit?: number; starting_after?: string } = {}): Page<MerchantRecord> {
    const { merchantRecords } = this.deps.store;
    let after: number | undefined;
    if (query.starting_after !== undefined) {
      after = merchantRecords.position(query.starting_after);
      if (after === undefined)
        throw new SandboxError(
          'resource_missing',
          `starting_after names no merchant ("${query.starting_after}"); pass the id of the last merchant of the previous page`,
          'starting_after',
        );
    }
    return readPage(query.limit ?? MERCHANT_PAGE, (n) => merchantRecords.list(after, n));
  }

  /** Every merchant with its credentials, in one query (the library's handle, in-process). */
  all(): MerchantRecord[] {
    return this.deps.store.merchantRecords.list(undefined, -1);
  }

  /** One merchant; 404 naming the id when there is none. */
  get(id: string): MerchantRecord {
    const merchant = this.deps.store.merchantRecords.get(id);
    if (!merchant) throw new SandboxError('resource_missing', `no merchant ${id}; GET /_sandbox/merchants lists them`, 'id');
    return merchant;
  }

  /** Empties one merchant's state (payments, events, deliveries, ...) and keeps the merchant and its credentials. */
  async reset(id: string): Promise<RowCounts> {
    this.get(id);
    return this.remove(id, true);
  }

  /** Deletes a created merchant with every row it owns; a seeded one is refused (409). */
  async delete(id: string): Promise<RowCounts> {
    const merchant = this.get(id);
    if (merchant.createdBy !== 'api') {
      throw new SandboxError(
        'merchant_seeded',
        `${id} is seeded from the fixtures, and seeded merchants are never deleted (a full reset restores them); to empty its state send POST /_sandbox/reset {"merchant": "${id}"}`,
        'id',
      );
    }
    return this.remove(id, false);
  }

  private async remove(id: string, keepCredentials: boolean): Promise<RowCounts> {
    const removed = await this.snapshot.replaceMerchant(id, keepCredentials);
    // Fault rules aimed at its endpoints (and, when it is deleted, its merchant= rules) went with
    // its rows (store/merchant-rows.ts); the injector keeps the rules in memory too.
    this.faults.reload();
    this.deps.logger.info(keepCredentials ? `merchant ${id} reset` : `merchant ${id} deleted`);
    return removed;
  }

  /** Writes a new merchant (inside the caller's transaction). */
  private insert(input: CreateMerchantInput): NewMerchant {
    const terminals = input.terminals?.map((t) => ({ terNo: t.terNO, publicKey: t.public_key, privateKey: t.private_key })) ?? [
      this.newTerminal(),
    ];
    for (const [index, t] of terminals.entries()) this.refuseTaken(t, terminals.slice(0, index));
    const merchant: NewMerchant = {
      id: newId('mer'),
      name: input.name ?? `Merchant ${terminals[0].terNo}`,
      webhookSecret: newSigningSecret(),
      currency: input.currency ?? 'EUR',
      apiKey: newApiKey('sk_test'),
      terminals,
    };
    this.deps.store.credentials.create(merchant);
    return merchant;
  }

  /**
   * The terminal of a merchant created without "terminals": the number after the highest one (from
   * 9001), or the lowest free one once that would leave the range the create takes; public key
   * pk_test_<terNO>, or a random one when that clashes with a terminal of someone's choosing.
   */
  private newTerminal(): Omit<Terminal, 'merchantId'> {
    const { credentials } = this.deps.store;
    const highest = credentials.highestTerNo();
    const terNo =
      highest < LAST_TER_NO ? Math.max(highest, FIRST_CREATED_TER_NO - 1) + 1 : credentials.freeTerNo(FIRST_CREATED_TER_NO, LAST_TER_NO);
    if (terNo === null) {
      throw new SandboxError(
        'terminal_in_use',
        `every terNO from ${FIRST_CREATED_TER_NO} to ${LAST_TER_NO} belongs to a terminal; delete merchants you no longer need, or pass "terminals" with a number below ${FIRST_CREATED_TER_NO}`,
        'terminals',
      );
    }
    let publicKey = `pk_test_${terNo}`;
    while (credentials.publicKeyClash(publicKey)) publicKey = newApiKey('pk_test');
    return { terNo, publicKey, privateKey: newApiKey('pv_test') };
  }

  /**
   * A terminal whose terNO or public_key another terminal (stored, or earlier in the same body)
   * has, or whose public_key ends with another's or is the end of another's: 409 naming the field
   * and the clash.
   */
  private refuseTaken(t: Omit<Terminal, 'merchantId'>, earlier: Array<Omit<Terminal, 'merchantId'>>): void {
    const { credentials } = this.deps.store;
    const field = `terminals.${earlier.length}`;
    if (credentials.terminal(t.terNo) || earlier.some((e) => e.terNo === t.terNo)) {
      throw new SandboxError(
        'terminal_in_use',
        `terNO ${t.terNo} already belongs to a terminal; choose another number, or leave "terminals" out to get a new one`,
        `${field}.terNO`,
      );
    }
    if (credentials.terminalByPublicKey(t.publicKey) || earlier.some((e) => e.publicKey === t.publicKey)) {
      throw new SandboxError(
        'terminal_in_use',
        `public_key ${t.publicKey} already belongs to a terminal; choose another key, or leave "terminals" out to get a new one`,
        `${field}.public_key`,
      );
    }
    const stored = credentials.publicKeyClash(t.publicKey);
    const other = stored ?? earlier.find((e) => publicKeysClash(e.publicKey, t.publicKey));
    if (other) {
      const whose = stored ? `terminal ${other.terNo}` : `terminals.${earlier.indexOf(other)}`;
      throw new SandboxError(
        'terminal_in_use',
        `public_key ${t.publicKey} ${publicKeyClashText(t.publicKey, other.publicKey)}, the public_key of ${whose}; ${PUBLIC_KEY_RULE}: choose a key that neither ends with another terminal's nor is the end of one, or leave "terminals" out to get a new one`,
        `${field}.public_key`,
      );
    }
  }
}
