// Merchants, terminals and API keys: seeded from a fixtures file, read on every request.
import { readFileSync } from 'node:fs';
import * as z from 'zod';
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
    .min(1),
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
  const merchantById = db.prepare(`SELECT ${MERCHANT} FROM merchants WHERE id = ?`);
  const terminalByNo = db.prepare('SELECT ter_no AS terNo, merchant_id AS merchantId, public_key AS publicKey, private_key AS privateKey FROM terminals WHERE ter_no = ?');
  const terminalByKey = db.prepare('SELECT ter_no AS terNo, merchant_id AS merchantId, public_key AS publicKey, private_key AS privateKey FROM terminals WHERE public_key = ?');
  const allTerminals = db.prepare('SELECT ter_no AS terNo, merchant_id AS merchantId, public_key AS publicKey, private_key AS privateKey FROM terminals ORDER BY ter_no');
  const allMerchants = db.prepare(`SELECT ${MERCHANT} FROM merchants ORDER BY rowid`);
  const insertCreated = db.prepare("INSERT INTO merchants (id, name, webhook_secret, currency, created_by) VALUES (?, ?, ?, ?, 'api')");
  const insertTerminal = db.prepare('INSERT INTO terminals (ter_no, merchant_id, public_key, private_key) VALUES (?, ?, ?, ?)');
  const insertKey = db.prepare('INSERT INTO api_keys (key, merchant_id) VALUES (?, ?)');
  const highestTerNo = db.prepare('SELECT MAX(ter_no) FROM terminals').pluck();
  const createdIds = db.prepare("SELECT id FROM merchants WHERE created_by = 'api'").pluck();
  const allKeys = db.prepare('SELECT key, merchant_id AS merchantId FROM api_keys ORDER BY key');

  // Credentials change only when seeded, imported or reset, yet every request reads them: they
  // are remembered here until forget(), which seed() and the snapshot's import and reset call.
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

  return {
    /** Writes the fixtures; running it again with the same file changes nothing. */
    seed(fixtures: Fixtures): void {
      cache.clear();
      db.transaction(() => {
        for (const m of fixtures.merchants) {
          upsertMerchant.run(m.id, m.name, m.webhook_secret);
          for (const t of m.terminals) upsertTerminal.run(t.terNO, m.id, t.public_key, t.private_key);
          for (const key of m.api_keys) upsertKey.run(key, m.id);
        }
      })();
    },
    /** Adds a merchant made through the control API (inside the caller's transaction). */
    create(merchant: NewMerchant): void {
      cache.clear();
      insertCreated.run(merchant.id, merchant.name, merchant.webhookSecret, merchant.currency);
      for (const t of merchant.terminals) insertTerminal.run(t.terNo, merchant.id, t.publicKey, t.privateKey);
      insertKey.run(merchant.apiKey, merchant.id);
    },
    /** The highest terNO of any terminal (0 when there is none). */
    highestTerNo: () => (highestTerNo.get() as number | null) ?? 0,
    /** The ids of the merchants made through the control API. */
    createdIds: () => createdIds.all() as string[],
    /** Drops what was remembered: call after the credential tables were written behind this repo's back. */
    forget: () => cache.clear(),
    merchant: (id: string) => remembered(`merchant:${id}`, () => merchantById.get(id) as Merchant | undefined),
    terminal: (terNo: number) => remembered(`terminal:${terNo}`, () => terminalByNo.get(terNo) as Terminal | undefined),
    terminalByPublicKey: (publicKey: string) => remembered(`public_key:${publicKey}`, () => terminalByKey.get(publicKey) as Terminal | undefined),
    terminals: () => remembered('terminals', () => allTerminals.all() as Terminal[]),
    merchants: () => remembered('merchants', () => allMerchants.all() as Merchant[]),
    apiKeys: () => remembered('api_keys', () => allKeys.all() as Array<{ key: string; merchantId: string }>),
  };
}

/** The credentials repository. */
export type CredentialsRepo = ReturnType<typeof createCredentialsRepo>;
