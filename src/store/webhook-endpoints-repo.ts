// Registered webhook endpoints of the /v1/ family: where a merchant's events go, which events,
// and the secret(s) that sign them. Deleted rows stay (hidden) so queued deliveries still sign.
import type { Db } from './open-database.js';
import type { SignatureMode } from '../domain/vocabularies.js';

/** A stored webhook endpoint. `events` is a list of event names or ['*']. */
export interface WebhookEndpoint {
  id: string;
  merchantId: string;
  url: string;
  events: string[];
  description: string;
  enabled: boolean;
  /** The endpoint's own signature mode; null follows the sandbox's --signature. */
  signature: SignatureMode | null;
  secret: string;
  previousSecret: string | null;
  previousSecretExpiresAt: number | null;
  createdAt: number;
  updatedAt: number;
  deletedAt: number | null;
}

/** Keyset page of a merchant's endpoints, newest first. */
export interface WebhookEndpointFilter {
  merchantId: string;
  /** Keyset pagination: only endpoints listed after this one (older; the cursor of starting_after). */
  startingAfter?: { createdAt: number; id: string };
  limit: number;
}

const COLUMNS = `id, merchant_id AS merchantId, url, events, description, enabled, signature, secret, previous_secret AS previousSecret,
  previous_secret_expires_at AS previousSecretExpiresAt, created_at AS createdAt, updated_at AS updatedAt, deleted_at AS deletedAt`;

type Row = Omit<WebhookEndpoint, 'events' | 'enabled'> & { events: string; enabled: number };
function fromRow(row: Row): WebhookEndpoint;
function fromRow(row: Row | undefined): WebhookEndpoint | undefined;
function fromRow(row: Row | undefined): WebhookEndpoint | undefined {
  return row ? { ...row, events: JSON.parse(row.events), enabled: row.enabled === 1 } : undefined;
}

/**
 * Every event a merchant publishes reads its enabled endpoints, which change only through this
 * repository (or with the whole state, when forget() is called): remembered per merchant until a
 * write, as a create publishes up to two events. Frozen, since every caller shares the one copy.
 */
function rememberedPerMerchant(read: (merchantId: string) => WebhookEndpoint[]) {
  const lists = new Map<string, readonly WebhookEndpoint[]>();
  return {
    get(merchantId: string): readonly WebhookEndpoint[] {
      let list = lists.get(merchantId);
      if (!list) {
        list = Object.freeze(read(merchantId).map((endpoint) => Object.freeze(endpoint)));
        lists.set(merchantId, list);
      }
      return list;
    },
    forget: () => lists.clear(),
  };
}

/** Prepared statements over webhook_endpoints. */
export function createWebhookEndpointsRepo(db: Db) {
  const insert =
    db.prepare(`INSERT INTO webhook_endpoints (id, merchant_id, url, events, description, enabled, signature, secret, previous_secret,
    previous_secret_expires_at, created_at, updated_at) VALUES (@id, @merchantId, @url, @events, @description, @enabled, @signature, @secret,
    @previousSecret, @previousSecretExpiresAt, @createdAt, @updatedAt)`);
  const update = db.prepare(`UPDATE webhook_endpoints SET url = @url, events = @events, description = @description, enabled = @enabled,
    signature = @signature, secret = @secret, previous_secret = @previousSecret, previous_secret_expires_at = @previousSecretExpiresAt, updated_at = @updatedAt
    WHERE id = @id AND deleted_at IS NULL`);
  const byId = db.prepare(`SELECT ${COLUMNS} FROM webhook_endpoints WHERE id = ?`);
  const liveByMerchant = db.prepare(
    `SELECT ${COLUMNS} FROM webhook_endpoints WHERE merchant_id = ? AND deleted_at IS NULL AND enabled = 1 ORDER BY created_at, id`,
  );
  const everyOne = db.prepare(`SELECT ${COLUMNS} FROM webhook_endpoints ORDER BY created_at, id`);
  const softDelete = db.prepare(
    'UPDATE webhook_endpoints SET deleted_at = ?, enabled = 0, updated_at = ? WHERE id = ? AND deleted_at IS NULL',
  );
  const pageFirst = db.prepare(
    `SELECT ${COLUMNS} FROM webhook_endpoints WHERE merchant_id = ? AND deleted_at IS NULL ORDER BY created_at DESC, id DESC LIMIT ?`,
  );
  const pageAfter = db.prepare(
    `SELECT ${COLUMNS} FROM webhook_endpoints WHERE merchant_id = ? AND deleted_at IS NULL AND (created_at, id) < (?, ?) ORDER BY created_at DESC, id DESC LIMIT ?`,
  );

  const params = (e: WebhookEndpoint) => ({ ...e, events: JSON.stringify(e.events), enabled: e.enabled ? 1 : 0 });
  const enabled = rememberedPerMerchant((merchantId) => (liveByMerchant.all(merchantId) as Row[]).map((row) => fromRow(row)));
  const written = <T>(result: T): T => {
    enabled.forget();
    return result;
  };
  return {
    insert: (e: WebhookEndpoint) => written(insert.run(params(e))),
    /** Writes every mutable field; false when the endpoint is gone. */
    update: (e: WebhookEndpoint) => written(update.run(params(e)).changes === 1),
    /** Any endpoint, deleted ones included (for signing queued deliveries). */
    get: (id: string) => fromRow(byId.get(id) as Row | undefined),
    /** The merchant's enabled, not deleted endpoints, oldest first (the fan-out order). */
    enabledFor: enabled.get,
    delete: (id: string, now: number) => written(softDelete.run(now, now, id).changes === 1),
    /** Drops the remembered endpoints (the table may have changed behind this repository). */
    forget: enabled.forget,
    /** Every endpoint of every merchant, deleted ones included, oldest first (the secrets a signature diagnosis tries). */
    all: () => (everyOne.all() as Row[]).map((row) => fromRow(row)),
    list(filter: WebhookEndpointFilter): WebhookEndpoint[] {
      const rows = filter.startingAfter
        ? pageAfter.all(filter.merchantId, filter.startingAfter.createdAt, filter.startingAfter.id, filter.limit)
        : pageFirst.all(filter.merchantId, filter.limit);
      return (rows as Row[]).map((row) => fromRow(row));
    },
  };
}
