// Merchants on demand: POST /_sandbox/merchants makes a fresh merchant with its own terminal, API
// key and webhook secret, so parallel test workers (one merchant each) never share references,
// lists, events or a reset. The fixtures' merchants are listed too but never change: they cannot
// be deleted, and a full reset restores exactly them. A merchant's state alone is cleared by
// reset(id); delete(id) removes a created merchant with every row it owns (store/merchant-rows.ts).
import * as z from 'zod';
import { currencyCode } from '../contracts/v1-common.js';
import { newApiKey, newId } from '../domain/ids.js';
import { SandboxError } from '../errors.js';
import type { Merchant, NewMerchant, Terminal } from '../store/credentials-repo.js';
import type { RowCounts } from '../store/merchant-rows.js';
import type { ServiceDeps } from './deps.js';
import type { Snapshot } from './snapshot.js';
import { newSigningSecret } from './webhook-endpoints.js';
import type { FaultInjector } from '../webhooks/faults.js';

/** Terminal numbers of created merchants start above this, clear of the fixtures' (1001, 2002). */
export const FIRST_CREATED_TER_NO = 9001;

// Entry fields sit inside an array, where error messages cannot reach a field's description, so
// each check carries its own hint (as in scenarios.ts).
const hint = (text: string) => ({ error: text });
const terNo = hint('terNO must be a whole number from 1 to 999999999 that no other terminal has');
const publicKey = hint('public_key must be 4-200 letters, digits or _ such as "pk_test_3003", unused by other terminals');
const privateKey = hint('private_key must be 4-200 letters, digits or _ such as "pv_test_3003"');

/** POST /_sandbox/merchants body: every field optional. */
export const createMerchantSchema = z
  .object({
    name: z.string().trim().min(1).max(200).optional().describe('the merchant name shown in lists and the dashboard (default "Merchant <terNO>")'),
    currency: currencyCode().optional().describe('the currency the sandbox makes objects in for this merchant, e.g. by event triggers (default "EUR")'),
    terminals: z
      .array(
        z
          .object({
            terNO: z.number(terNo).int(terNo).min(1, terNo).max(999_999_999, terNo),
            public_key: z.string(publicKey).regex(/^[A-Za-z0-9_]{4,200}$/, publicKey),
            private_key: z.string(privateKey).regex(/^[A-Za-z0-9_]{4,200}$/, privateKey),
          })
          .strict(),
      )
      .min(1)
      .max(10)
      .optional()
      .describe('the terminals, shaped like those of a fixtures file: [{"terNO": 3003, "public_key": "pk_test_3003", "private_key": "pv_test_3003"}] (default: one new terminal)'),
  })
  .strict();

/** A parsed POST /_sandbox/merchants body. */
export type CreateMerchantInput = z.output<typeof createMerchantSchema>;

/** A merchant with all its credentials, as the control API, the CLI and startSandbox() show it. */
export interface MerchantRecord extends Merchant {
  apiKeys: string[];
  terminals: Array<Omit<Terminal, 'merchantId'>>;
}

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
    const id = store.tx(() => {
      const next = Math.max(store.credentials.highestTerNo(), FIRST_CREATED_TER_NO - 1) + 1;
      const terminals = (input.terminals ?? [{ terNO: next, public_key: `pk_test_${next}`, private_key: newApiKey('pv_test') }]).map((t) => ({ terNo: t.terNO, publicKey: t.public_key, privateKey: t.private_key }));
      terminals.forEach((t, index) => this.refuseTaken(t, terminals.slice(0, index)));
      const merchant: NewMerchant = {
        id: newId('mer'),
        name: input.name ?? `Merchant ${terminals[0]!.terNo}`,
        webhookSecret: newSigningSecret(),
        currency: input.currency ?? 'EUR',
        apiKey: newApiKey('sk_test'),
        terminals,
      };
      store.credentials.create(merchant);
      return merchant.id;
    });
    this.deps.logger.info(`merchant ${id} created`);
    return this.get(id);
  }

  /** Every merchant, seeded ones first, in the order they were made. */
  list(): MerchantRecord[] {
    return this.deps.store.credentials.merchants().map((m) => this.record(m));
  }

  /** One merchant; 404 naming the id when there is none. */
  get(id: string): MerchantRecord {
    const merchant = this.deps.store.credentials.merchant(id);
    if (!merchant) throw new SandboxError('resource_missing', `no merchant ${id}; GET /_sandbox/merchants lists them`, 'id');
    return this.record(merchant);
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
    const { store } = this.deps;
    // Fault rules aimed at its endpoints also live in the injector's memory: removed there too.
    const rules = this.faults.list().rules.filter((r) => r.scope === 'endpoint' && r.target !== null && store.webhookEndpoints.get(r.target)?.merchantId === id);
    for (const rule of rules) this.faults.remove(rule.id);
    const removed = await this.snapshot.replaceMerchant(id, keepCredentials);
    this.deps.logger.info(keepCredentials ? `merchant ${id} reset` : `merchant ${id} deleted`);
    return removed;
  }

  /** A terminal whose terNO or public_key another terminal (stored, or earlier in the same body) has: 409 naming it. */
  private refuseTaken(t: Omit<Terminal, 'merchantId'>, earlier: Array<Omit<Terminal, 'merchantId'>>): void {
    const { credentials } = this.deps.store;
    const index = earlier.length;
    if (credentials.terminal(t.terNo) || earlier.some((e) => e.terNo === t.terNo)) {
      throw new SandboxError('terminal_in_use', `terNO ${t.terNo} already belongs to a terminal; choose another number, or leave "terminals" out to get a new one`, `terminals.${index}.terNO`);
    }
    if (credentials.terminalByPublicKey(t.publicKey) || earlier.some((e) => e.publicKey === t.publicKey)) {
      throw new SandboxError('terminal_in_use', `public_key ${t.publicKey} already belongs to a terminal; choose another key, or leave "terminals" out to get a new one`, `terminals.${index}.public_key`);
    }
  }

  private record(m: Merchant): MerchantRecord {
    const { credentials } = this.deps.store;
    return {
      ...m,
      apiKeys: credentials.apiKeys().filter((k) => k.merchantId === m.id).map((k) => k.key),
      terminals: credentials.terminals().filter((t) => t.merchantId === m.id).map(({ terNo, publicKey, privateKey }) => ({ terNo, publicKey, privateKey })),
    };
  }
}
