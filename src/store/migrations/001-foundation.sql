-- Foundation: credentials, S2S transactions, authentication challenges, events, the webhook
-- outbox with its attempt log, and timed jobs. Times are integer milliseconds of the sandbox
-- clock; money is integer minor units.

CREATE TABLE merchants (
  id TEXT PRIMARY KEY,
  name TEXT NOT NULL,
  webhook_secret TEXT NOT NULL
);

CREATE TABLE terminals (
  ter_no INTEGER PRIMARY KEY,
  merchant_id TEXT NOT NULL REFERENCES merchants(id),
  public_key TEXT NOT NULL UNIQUE,
  private_key TEXT NOT NULL
);

CREATE TABLE api_keys (
  key TEXT PRIMARY KEY,
  merchant_id TEXT NOT NULL REFERENCES merchants(id)
);

CREATE TABLE transactions (
  trans_id TEXT PRIMARY KEY,
  merchant_id TEXT NOT NULL REFERENCES merchants(id),
  ter_no INTEGER NOT NULL REFERENCES terminals(ter_no),
  reference TEXT NOT NULL,
  amount INTEGER NOT NULL,
  currency TEXT NOT NULL,
  mop TEXT NOT NULL,
  brand TEXT NOT NULL,
  ccno TEXT,
  order_status INTEGER NOT NULL,
  response TEXT NOT NULL,
  product_name TEXT NOT NULL,
  webhook_url TEXT NOT NULL,
  return_url TEXT NOT NULL,
  bill_ip TEXT,
  customer TEXT NOT NULL DEFAULT '{}',
  encryption_method TEXT NOT NULL DEFAULT 'none',
  outcome TEXT NOT NULL,
  status_token TEXT NOT NULL UNIQUE,
  refunded INTEGER NOT NULL DEFAULT 0,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL,
  UNIQUE (ter_no, reference)
);
CREATE INDEX transactions_merchant_created ON transactions (merchant_id, created_at);
CREATE INDEX transactions_status ON transactions (order_status, created_at);

CREATE TABLE challenges (
  token TEXT PRIMARY KEY,
  subject_type TEXT NOT NULL,
  subject_id TEXT NOT NULL,
  merchant_id TEXT NOT NULL REFERENCES merchants(id),
  kind TEXT NOT NULL,
  state TEXT NOT NULL,
  tries_left INTEGER NOT NULL,
  expires_at INTEGER NOT NULL,
  return_url TEXT NOT NULL,
  details TEXT NOT NULL DEFAULT '{}',
  created_at INTEGER NOT NULL,
  completed_at INTEGER
);
CREATE INDEX challenges_subject ON challenges (subject_type, subject_id);
CREATE INDEX challenges_open ON challenges (expires_at) WHERE state = 'open';

CREATE TABLE events (
  id TEXT PRIMARY KEY,
  merchant_id TEXT NOT NULL REFERENCES merchants(id),
  type TEXT NOT NULL,
  resource_id TEXT NOT NULL,
  data TEXT NOT NULL,
  created_at INTEGER NOT NULL
);
CREATE INDEX events_merchant_created ON events (merchant_id, created_at);
CREATE INDEX events_resource ON events (resource_id, created_at);
CREATE INDEX events_type_created ON events (type, created_at);

CREATE TABLE deliveries (
  id TEXT PRIMARY KEY,
  event_id TEXT NOT NULL REFERENCES events(id),
  merchant_id TEXT NOT NULL REFERENCES merchants(id),
  url TEXT NOT NULL,
  endpoint_id TEXT,
  content_type TEXT NOT NULL,
  body TEXT NOT NULL,
  status TEXT NOT NULL CHECK (status IN ('pending', 'succeeded', 'failed')),
  manual INTEGER NOT NULL DEFAULT 0,
  attempts INTEGER NOT NULL DEFAULT 0,
  next_attempt_at INTEGER,
  lease_until INTEGER,
  last_status INTEGER,
  last_error TEXT,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL
);
CREATE INDEX deliveries_due ON deliveries (next_attempt_at) WHERE status = 'pending';
CREATE INDEX deliveries_event ON deliveries (event_id);
CREATE INDEX deliveries_created ON deliveries (created_at);
CREATE INDEX deliveries_status_created ON deliveries (status, created_at);

CREATE TABLE delivery_attempts (
  id INTEGER PRIMARY KEY,
  delivery_id TEXT NOT NULL REFERENCES deliveries(id),
  attempt INTEGER NOT NULL,
  started_at INTEGER NOT NULL,
  request_headers TEXT NOT NULL,
  request_body TEXT NOT NULL,
  response_status INTEGER,
  response_headers TEXT,
  response_body TEXT,
  latency_ms REAL,
  error_kind TEXT,
  error_message TEXT,
  fault TEXT
);
CREATE INDEX delivery_attempts_delivery ON delivery_attempts (delivery_id, attempt);

CREATE TABLE jobs (
  id INTEGER PRIMARY KEY,
  kind TEXT NOT NULL,
  subject_id TEXT NOT NULL,
  due_at INTEGER NOT NULL,
  payload TEXT NOT NULL DEFAULT '{}',
  done INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX jobs_due ON jobs (due_at) WHERE done = 0;
