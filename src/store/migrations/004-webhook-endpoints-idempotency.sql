-- Registered webhook endpoints (/v1/webhook_endpoints) and Idempotency-Key reservations.
-- Times are integer milliseconds of the sandbox clock.

CREATE TABLE webhook_endpoints (
  id TEXT PRIMARY KEY,
  merchant_id TEXT NOT NULL REFERENCES merchants(id),
  url TEXT NOT NULL,
  -- JSON array of event names, or ["*"] for every event.
  events TEXT NOT NULL,
  description TEXT NOT NULL DEFAULT '',
  enabled INTEGER NOT NULL DEFAULT 1,
  secret TEXT NOT NULL,
  -- The secret before the last rotation; it keeps signing until previous_secret_expires_at.
  previous_secret TEXT,
  previous_secret_expires_at INTEGER,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL,
  -- Deleted endpoints are kept so deliveries already queued can still be signed.
  deleted_at INTEGER
);
CREATE INDEX webhook_endpoints_merchant ON webhook_endpoints (merchant_id, created_at) WHERE deleted_at IS NULL;

CREATE TABLE idempotency_keys (
  -- Who the key belongs to (merchant id), so two merchants never share a key.
  scope TEXT NOT NULL,
  key TEXT NOT NULL,
  -- SHA-256 of method, path and raw body: the same key with another request is refused.
  fingerprint TEXT NOT NULL,
  method TEXT NOT NULL,
  path TEXT NOT NULL,
  state TEXT NOT NULL CHECK (state IN ('in_progress', 'done')),
  response_status INTEGER,
  response_headers TEXT,
  response_body TEXT,
  created_at INTEGER NOT NULL,
  PRIMARY KEY (scope, key)
);
CREATE INDEX idempotency_keys_created ON idempotency_keys (created_at);
