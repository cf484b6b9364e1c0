// Merchants, terminals and API keys: seeded from a fixtures file, read on every request.
import { findPublicKeyClash, publicKeyClashText, PUBLIC_KEY_RULE } from '../domain/public-keys.js';
import { insertionPoint } from '../domain/sorted.js';
import { PublicKeyIndex } from './public-key-index.js';
import type { Db } from './open-database.js';
import type { Fixtures } from './fixtures.js';

/** A merchant as the services see it. */
export interface Merchant {
  id: string;
  name: string;
  webhookSecret: string;
  /** The currency the sandbox invents objects in for this merchant (event triggers). */
  currency: string;
  /** 'fixtures' for a seeded merchant, 'api' for one made with POST /_sandbox/merchants. */
  createdBy: 'fixtures' | 'api';
}

/** A merchant made through the control API, with every credential it needs. */
export interface NewMerchant {
  id: string;
  name: string;
  webhookSecret: string;
  currency: string;
  apiKey: string;
  terminals: Array<Omit<Terminal, 'merchantId'>>;
}

/** A /v1/ API key and the merchant it names. */
export interface ApiKey {
  key: string;
  merchantId: string;
}

/** A terminal of the S2S family, with the keys of its cipher. */
export interface Terminal {
  terNo: number;
  merchantId: string;
  publicKey: string;
  privateKey: string;
}

/** A copy of sorted `list` with `item` inserted after the items `before` says go first. */
function inserted<T>(list: readonly T[], item: T, before: (listed: T) => boolean): readonly T[] {
  const copy = list.slice();
  copy.splice(insertionPoint(list, before), 0, item);
  return copy;
}

const MERCHANT = 'id, name, webhook_secret AS webhookSecret, currency, created_by AS createdBy';
const TERMINAL = 'ter_no AS terNo, merchant_id AS merchantId, public_key AS publicKey, private_key AS privateKey';

/** The credential tables' prepared statements. */
function prepareStatements(db: Db) {
  return {
    upsertMerchant: db.prepare(
      'INSERT INTO merchants (id, name, webhook_secret) VALUES (?, ?, ?) ON CONFLICT(id) DO UPDATE SET name = excluded.name, webhook_secret = excluded.webhook_secret',
    ),
    upsertTerminal: db.prepare(
      'INSERT INTO terminals (ter_no, merchant_id, public_key, private_key) VALUES (?, ?, ?, ?) ON CONFLICT(ter_no) DO UPDATE SET merchant_id = excluded.merchant_id, public_key = excluded.public_key, private_key = excluded.private_key',
    ),
    upsertKey: db.prepare(
      'INSERT INTO api_keys (key, merchant_id) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET merchant_id = excluded.merchant_id',
    ),
    merchantById: db.prepare(`SELECT ${MERCHANT} FROM merchants WHERE id = ?`),
    terminalByNo: db.prepare(`SELECT ${TERMINAL} FROM terminals WHERE ter_no = ?`),
    terminalByKey: db.prepare(`SELECT ${TERMINAL} FROM terminals WHERE public_key = ?`),
    allTerminals: db.prepare(`SELECT ${TERMINAL} FROM terminals ORDER BY ter_no`),
    allMerchants: db.prepare(`SELECT ${MERCHANT} FROM merchants ORDER BY rowid`),
    insertCreated: db.prepare("INSERT INTO merchants (id, name, webhook_secret, currency, created_by) VALUES (?, ?, ?, ?, 'api')"),
    insertTerminal: db.prepare('INSERT INTO terminals (ter_no, merchant_id, public_key, private_key) VALUES (?, ?, ?, ?)'),
    insertKey: db.prepare('INSERT INTO api_keys (key, merchant_id) VALUES (?, ?)'),
    highestTerNo: db.prepare('SELECT MAX(ter_no) FROM terminals').pluck(),
    // The lowest free number from @first on: @first itself, or the first one after a taken number.
    freeTerNo: db
      .prepare(
        `SELECT CASE WHEN NOT EXISTS (SELECT 1 FROM terminals WHERE ter_no = @first) THEN @first ELSE (SELECT t.ter_no + 1 FROM terminals t
        WHERE t.ter_no >= @first AND t.ter_no < @last AND NOT EXISTS (SELECT 1 FROM terminals u WHERE u.ter_no = t.ter_no + 1) ORDER BY t.ter_no LIMIT 1) END`,
      )
      .pluck(),
    createdIds: db.prepare("SELECT id FROM merchants WHERE created_by = 'api'").pluck(),
    allKeys: db.prepare('SELECT key, merchant_id AS merchantId FROM api_keys ORDER BY key'),
  };
}

type Statements = ReturnType<typeof prepareStatements>;

/**
 * Writes the fixtures in one transaction; a fixtures terminal whose public key clashes with another
 * stored terminal's (docs/decisions.md) is refused, and nothing is written.
 */
function seedFixtures(db: Db, sql: Statements, fixtures: Fixtures): void {
  db.transaction(() => {
    for (const m of fixtures.merchants) {
      sql.upsertMerchant.run(m.id, m.name, m.webhook_secret);
      for (const t of m.terminals) sql.upsertTerminal.run(t.terNO, m.id, t.public_key, t.private_key);
      for (const key of m.api_keys) sql.upsertKey.run(key, m.id);
    }
    // Checked against what the database holds now, inside the transaction.
    const stored = new PublicKeyIndex<Terminal>(sql.allTerminals.all() as Terminal[]);
    for (const t of fixtures.merchants.flatMap((m) => m.terminals)) {
      const other = stored.clashWith(t.public_key, t.terNO);
      if (other) {
        throw new Error(
          `the fixtures terminal ${t.terNO} has public_key ${JSON.stringify(t.public_key)}, which ${publicKeyClashText(t.public_key, other.publicKey)}, the public_key of terminal ${other.terNo} (merchant ${other.merchantId}) in the database; ${PUBLIC_KEY_RULE}: give the fixtures terminal another public_key, or start on another --db`,
        );
      }
    }
  })();
}

/**
 * What the repository remembers. Credentials change only when seeded, created, deleted, imported or
 * reset, yet every request reads them: they are remembered here until forget(), which seed() and
 * the snapshot's import and reset call. A merchant made or deleted on demand is added to or taken
 * from what is remembered (added(), removed()): reading every merchant again after each one made
 * cost each create 36 ms at 5 000 merchants.
 */
class RememberedCredentials {
  private readonly cache = new Map<string, unknown>();
  private publicKeys: PublicKeyIndex<Terminal> | undefined;

  /** The value remembered under `key`, or what `read` returns (remembered when found). */
  get<T>(key: string, read: () => T): T {
    if (this.cache.has(key)) return this.cache.get(key) as T;
    const value = read();
    // Misses are not remembered: requests choose the keys looked up (any terNO, any public_key),
    // so remembering them would let a client grow this map without end. Hits are bounded by the
    // credentials there are. Frozen, since every caller shares the one copy; a list is typed
    // readonly instead, as freezing 5 000 items' array costs 0.7 ms, and a create would pay it
    // three times over (and a loop over a frozen array runs slower).
    if (value === undefined) return value;
    if (Array.isArray(value)) for (const item of value) Object.freeze(item);
    else Object.freeze(value);
    this.cache.set(key, value);
    return value;
  }

  /** The terminals `terminals` reads, by public key; built once until forget(). */
  keyIndex(terminals: () => readonly Terminal[]): PublicKeyIndex<Terminal> {
    this.publicKeys ??= new PublicKeyIndex(terminals());
    return this.publicKeys;
  }

  /** Adds a merchant whose create() committed. */
  added(merchant: NewMerchant): void {
    const { id, name, webhookSecret, currency, apiKey } = merchant;
    const made = merchant.terminals.map((t) => Object.freeze({ ...t, merchantId: id }));
    // Each where the queries read it (ORDER BY rowid, ter_no, key).
    this.update<Merchant>('merchants', (list) => [
      ...list,
      Object.freeze({ id, name, webhookSecret, currency, createdBy: 'api' as const }),
    ]);
    this.update<Terminal>('terminals', (list) => made.reduce((sorted, t) => inserted(sorted, t, (a) => a.terNo < t.terNo), list));
    this.update<ApiKey>('api_keys', (list) => inserted(list, Object.freeze({ key: apiKey, merchantId: id }), (a) => a.key < apiKey));
    this.publicKeys?.add(made);
  }

  /** Takes out a merchant whose deletion committed. */
  removed(merchantId: string): void {
    for (const [key, value] of this.cache) {
      const item = value as Partial<Merchant & Terminal>;
      if (!Array.isArray(value) && (item.id === merchantId || item.merchantId === merchantId)) this.cache.delete(key);
    }
    this.update<Merchant>('merchants', (list) => list.filter((m) => m.id !== merchantId));
    this.update<Terminal>('terminals', (list) => list.filter((t) => t.merchantId !== merchantId));
    this.update<ApiKey>('api_keys', (list) => list.filter((k) => k.merchantId !== merchantId));
    this.publicKeys?.removeMerchant(merchantId);
  }

  /** Drops everything remembered. */
  forget(): void {
    this.cache.clear();
    this.publicKeys = undefined;
  }

  /** Replaces a remembered list, if there is one, with `change` of it (whose new items are frozen). */
  private update<T extends object>(key: string, change: (list: readonly T[]) => readonly T[]): void {
    const list = this.cache.get(key) as readonly T[] | undefined;
    if (list) this.cache.set(key, change(list));
  }
}

/** Prepared statements over the credential tables. */
export function createCredentialsRepo(db: Db) {
  const sql = prepareStatements(db);
  const remembered = new RememberedCredentials();
  const terminals = (): readonly Terminal[] => remembered.get('terminals', () => sql.allTerminals.all() as Terminal[]);
  const keyIndex = () => remembered.keyIndex(terminals);
  const forget = () => remembered.forget();

  return {
    /** Writes the fixtures; running it again with the same file changes nothing. A clashing public key is refused (seedFixtures). */
    seed(fixtures: Fixtures): void {
      try {
        seedFixtures(db, sql, fixtures);
      } finally {
        forget();
      }
    },
    /** Adds a merchant made through the control API (inside the caller's transaction); call added() once committed. */
    create(merchant: NewMerchant): void {
      sql.insertCreated.run(merchant.id, merchant.name, merchant.webhookSecret, merchant.currency);
      for (const t of merchant.terminals) sql.insertTerminal.run(t.terNo, merchant.id, t.publicKey, t.privateKey);
      sql.insertKey.run(merchant.apiKey, merchant.id);
    },
    /** Remembers a merchant whose create() committed. */
    added: (merchant: NewMerchant) => remembered.added(merchant),
    /** Forgets a merchant whose deletion committed. */
    removed: (merchantId: string) => remembered.removed(merchantId),
    /** The highest terNO of any terminal (0 when there is none). */
    highestTerNo: () => (sql.highestTerNo.get() as number | null) ?? 0,
    /** The lowest terNO from `first` to `last` that no terminal has; null when every one is taken. */
    freeTerNo: (first: number, last: number) => sql.freeTerNo.get({ first, last }) as number | null,
    /** A stored terminal whose public key is `publicKey`, ends it or ends with it (public-key-index.ts). */
    publicKeyClash: (publicKey: string) => keyIndex().clashWith(publicKey),
    /** Two stored terminals whose public keys clash, read afresh (an import checks what it wrote); undefined when none do. */
    storedPublicKeyClash: () => findPublicKeyClash(sql.allTerminals.all() as Terminal[]),
    /** The ids of the merchants made through the control API. */
    createdIds: () => sql.createdIds.all() as string[],
    /** Drops what was remembered: call after the credential tables were written behind this repo's back. */
    forget,
    merchant: (id: string) => remembered.get(`merchant:${id}`, () => sql.merchantById.get(id) as Merchant | undefined),
    terminal: (terNo: number) => remembered.get(`terminal:${terNo}`, () => sql.terminalByNo.get(terNo) as Terminal | undefined),
    terminalByPublicKey: (publicKey: string) =>
      remembered.get(`public_key:${publicKey}`, () => sql.terminalByKey.get(publicKey) as Terminal | undefined),
    /** The terminal whose public key ends `encryptedData`: the one place encrypted_data is matched to its terminal. */
    terminalOfEncryptedData: (encryptedData: string) => keyIndex().terminalEndingWith(encryptedData),
    terminals,
    merchants: (): readonly Merchant[] => remembered.get('merchants', () => sql.allMerchants.all() as Merchant[]),
    apiKeys: (): readonly ApiKey[] => remembered.get('api_keys', () => sql.allKeys.all() as ApiKey[]),
  };
}

/** The credentials repository. */
export type CredentialsRepo = ReturnType<typeof createCredentialsRepo>;
