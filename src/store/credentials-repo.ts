// Merchants, terminals and API keys: seeded from a fixtures file, read on every request.
import { readFileSync } from 'node:fs';
import * as z from 'zod';
import { findPublicKeyClash, publicKeyClashText, PUBLIC_KEY_RULE } from '../domain/public-keys.js';
import { PublicKeyIndex } from './public-key-index.js';
import type { Db } from './open-database.js';

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

const fixturesSchema = z.object({
  merchants: z
    .array(
      z.object({
        id: z.string().regex(/^[A-Za-z0-9_]+$/),
        name: z.string().min(1),
        webhook_secret: z.string().min(8),
        api_keys: z.array(z.string().regex(/^sk_test_[A-Za-z0-9_]+$/, 'API keys must start with sk_test_')).default([]),
        terminals: z
          .array(z.object({ terNO: z.number().int().positive(), public_key: z.string().min(4), private_key: z.string().min(4) }))
          .default([]),
      }),
    )
    .min(1)
    .superRefine((merchants, ctx) => {
      const terminals = merchants.flatMap((m, i) => m.terminals.map((t, j) => ({ publicKey: t.public_key, path: `merchants.${i}.terminals.${j}.public_key` })));
      const clash = findPublicKeyClash(terminals);
      if (!clash) return;
      const [shorter, longer] = clash;
      ctx.addIssue({
        code: 'custom',
        path: longer.path.split('.').slice(1).map((part) => (/^\d+$/.test(part) ? Number(part) : part)),
        message: `${JSON.stringify(longer.publicKey)} ${publicKeyClashText(longer.publicKey, shorter.publicKey)} (${shorter.path}); ${PUBLIC_KEY_RULE}: give one of them another public_key`,
      });
    }),
});

/** The fixtures file shape (fixtures/default.json). */
export type Fixtures = z.infer<typeof fixturesSchema>;

/** Reads and checks a fixtures file; the error names the file and the first bad field. */
export function readFixtures(path: string): Fixtures {
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(path, 'utf8'));
  } catch (err) {
    throw new Error(`cannot read fixtures ${path}: ${(err as Error).message}`);
  }
  const parsed = fixturesSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new Error(`fixtures ${path}: ${issue.path.join('.')}: ${issue.message}`);
  }
  return parsed.data;
}

/** Prepared statements over the credential tables. */
export function createCredentialsRepo(db: Db) {
  const upsertMerchant = db.prepare(
    'INSERT INTO merchants (id, name, webhook_secret) VALUES (?, ?, ?) ON CONFLICT(id) DO UPDATE SET name = excluded.name, webhook_secret = excluded.webhook_secret',
  );
  const upsertTerminal = db.prepare(
    'INSERT INTO terminals (ter_no, merchant_id, public_key, private_key) VALUES (?, ?, ?, ?) ON CONFLICT(ter_no) DO UPDATE SET merchant_id = excluded.merchant_id, public_key = excluded.public_key, private_key = excluded.private_key',
  );
  const upsertKey = db.prepare('INSERT INTO api_keys (key, merchant_id) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET merchant_id = excluded.merchant_id');
  const MERCHANT = 'id, name, webhook_secret AS webhookSecret, currency, created_by AS createdBy';
  const TERMINAL = 'ter_no AS terNo, merchant_id AS merchantId, public_key AS publicKey, private_key AS privateKey';
  const merchantById = db.prepare(`SELECT ${MERCHANT} FROM merchants WHERE id = ?`);
  const terminalByNo = db.prepare(`SELECT ${TERMINAL} FROM terminals WHERE ter_no = ?`);
  const terminalByKey = db.prepare(`SELECT ${TERMINAL} FROM terminals WHERE public_key = ?`);
  const allTerminals = db.prepare(`SELECT ${TERMINAL} FROM terminals ORDER BY ter_no`);
  const allMerchants = db.prepare(`SELECT ${MERCHANT} FROM merchants ORDER BY rowid`);
  const insertCreated = db.prepare("INSERT INTO merchants (id, name, webhook_secret, currency, created_by) VALUES (?, ?, ?, ?, 'api')");
  const insertTerminal = db.prepare('INSERT INTO terminals (ter_no, merchant_id, public_key, private_key) VALUES (?, ?, ?, ?)');
  const insertKey = db.prepare('INSERT INTO api_keys (key, merchant_id) VALUES (?, ?)');
  const highestTerNo = db.prepare('SELECT MAX(ter_no) FROM terminals').pluck();
  // The lowest free number from @first on: @first itself, or the first one after a taken number.
  const freeTerNo = db
    .prepare(
      `SELECT CASE WHEN NOT EXISTS (SELECT 1 FROM terminals WHERE ter_no = @first) THEN @first ELSE (SELECT t.ter_no + 1 FROM terminals t
        WHERE t.ter_no >= @first AND t.ter_no < @last AND NOT EXISTS (SELECT 1 FROM terminals u WHERE u.ter_no = t.ter_no + 1) ORDER BY t.ter_no LIMIT 1) END`,
    )
    .pluck();
  const createdIds = db.prepare("SELECT id FROM merchants WHERE created_by = 'api'").pluck();
  const allKeys = db.prepare('SELECT key, merchant_id AS merchantId FROM api_keys ORDER BY key');

  // Credentials change only when seeded, created, deleted, imported or reset, yet every request
  // reads them: they are remembered here until forget(), which seed() and the snapshot's import
  // and reset call. A merchant made or deleted on demand is added to or taken from what is
  // remembered (added(), removed()): reading every merchant again after each one made cost each
  // create 36 ms at 5 000 merchants.
  const cache = new Map<string, unknown>();
  const remembered = <T>(key: string, read: () => T): T => {
    if (cache.has(key)) return cache.get(key) as T;
    const value = read();
    // Misses are not remembered: requests choose the keys looked up (any terNO, any public_key),
    // so remembering them would let a client grow this map without end. Hits are bounded by the
    // credentials there are. Frozen: every caller shares the one copy.
    if (value === undefined) return value;
    if (Array.isArray(value)) value.forEach((item) => Object.freeze(item));
    cache.set(key, Object.freeze(value));
    return value;
  };
  /** Replaces a remembered list, if there is one, with `change` of it. */
  const update = <T extends object>(key: string, change: (list: readonly T[]) => T[]) => {
    const list = cache.get(key) as readonly T[] | undefined;
    if (list) cache.set(key, Object.freeze(change(list).map((item) => Object.freeze(item))));
  };
  const terminals = () => remembered('terminals', () => allTerminals.all() as Terminal[]);
  let publicKeys: PublicKeyIndex | undefined;
  const keyIndex = () => (publicKeys ??= new PublicKeyIndex(terminals()));
  const forget = () => {
    cache.clear();
    publicKeys = undefined;
  };

  return {
    /**
     * Writes the fixtures; running it again with the same file changes nothing. A fixtures terminal
     * whose public key clashes with another stored terminal's (docs/decisions.md) is refused, and
     * nothing is written.
     */
    seed(fixtures: Fixtures): void {
      try {
        db.transaction(() => {
          for (const m of fixtures.merchants) {
            upsertMerchant.run(m.id, m.name, m.webhook_secret);
            for (const t of m.terminals) upsertTerminal.run(t.terNO, m.id, t.public_key, t.private_key);
            for (const key of m.api_keys) upsertKey.run(key, m.id);
          }
          // Checked against what the database holds now, inside the transaction.
          const stored = new PublicKeyIndex(allTerminals.all() as Terminal[]);
          for (const t of fixtures.merchants.flatMap((m) => m.terminals)) {
            const other = stored.clashWith(t.public_key, t.terNO);
            if (other) {
              throw new Error(
                `the fixtures terminal ${t.terNO} has public_key ${JSON.stringify(t.public_key)}, which ${publicKeyClashText(t.public_key, other.publicKey)}, the public_key of terminal ${other.terNo} (merchant ${other.merchantId}) in the database; ${PUBLIC_KEY_RULE}: give the fixtures terminal another public_key, or start on another --db`,
              );
            }
          }
        })();
      } finally {
        forget();
      }
    },
    /** Adds a merchant made through the control API (inside the caller's transaction); call added() once committed. */
    create(merchant: NewMerchant): void {
      insertCreated.run(merchant.id, merchant.name, merchant.webhookSecret, merchant.currency);
      for (const t of merchant.terminals) insertTerminal.run(t.terNo, merchant.id, t.publicKey, t.privateKey);
      insertKey.run(merchant.apiKey, merchant.id);
    },
    /** Remembers a merchant whose create() committed. */
    added(merchant: NewMerchant): void {
      const { id, name, webhookSecret, currency, apiKey } = merchant;
      const made = merchant.terminals.map((t) => Object.freeze({ ...t, merchantId: id }));
      update<Merchant>('merchants', (list) => [...list, { id, name, webhookSecret, currency, createdBy: 'api' }]);
      // In the order the queries read them; appended to a sorted list, so the sort is one pass.
      update<Terminal>('terminals', (list) => [...list, ...made].sort((a, b) => a.terNo - b.terNo));
      update<ApiKey>('api_keys', (list) => [...list, { key: apiKey, merchantId: id }].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0)));
      publicKeys?.add(made);
    },
    /** Forgets a merchant whose deletion committed. */
    removed(merchantId: string): void {
      for (const [key, value] of cache) {
        const item = value as Partial<Merchant & Terminal>;
        if (!Array.isArray(value) && (item.id === merchantId || item.merchantId === merchantId)) cache.delete(key);
      }
      update<Merchant>('merchants', (list) => list.filter((m) => m.id !== merchantId));
      update<Terminal>('terminals', (list) => list.filter((t) => t.merchantId !== merchantId));
      update<ApiKey>('api_keys', (list) => list.filter((k) => k.merchantId !== merchantId));
      publicKeys?.removeMerchant(merchantId);
    },
    /** The highest terNO of any terminal (0 when there is none). */
    highestTerNo: () => (highestTerNo.get() as number | null) ?? 0,
    /** The lowest terNO from `first` to `last` that no terminal has; null when every one is taken. */
    freeTerNo: (first: number, last: number) => freeTerNo.get({ first, last }) as number | null,
    /** A stored terminal whose public key is `publicKey`, ends it or ends with it (public-key-index.ts). */
    publicKeyClash: (publicKey: string) => keyIndex().clashWith(publicKey),
    /** Two stored terminals whose public keys clash, read afresh (an import checks what it wrote); undefined when none do. */
    storedPublicKeyClash: () => findPublicKeyClash(allTerminals.all() as Terminal[]),
    /** The ids of the merchants made through the control API. */
    createdIds: () => createdIds.all() as string[],
    /** Drops what was remembered: call after the credential tables were written behind this repo's back. */
    forget,
    merchant: (id: string) => remembered(`merchant:${id}`, () => merchantById.get(id) as Merchant | undefined),
    terminal: (terNo: number) => remembered(`terminal:${terNo}`, () => terminalByNo.get(terNo) as Terminal | undefined),
    terminalByPublicKey: (publicKey: string) => remembered(`public_key:${publicKey}`, () => terminalByKey.get(publicKey) as Terminal | undefined),
    /** The terminal whose public key ends `encryptedData`: the one place encrypted_data is matched to its terminal. */
    terminalOfEncryptedData: (encryptedData: string) => keyIndex().terminalEndingWith(encryptedData),
    terminals,
    merchants: () => remembered('merchants', () => allMerchants.all() as Merchant[]),
    apiKeys: () => remembered('api_keys', () => allKeys.all() as ApiKey[]),
  };
}

/** The credentials repository. */
export type CredentialsRepo = ReturnType<typeof createCredentialsRepo>;
