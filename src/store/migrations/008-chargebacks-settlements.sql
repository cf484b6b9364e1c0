-- Chargebacks (disputes) and settlements of both families: an S2S transaction (subject_type s2s,
-- subject_id = transID) or a /v1/ payment (v1, pay_...). Money is integer minor units, times are
-- sandbox-clock milliseconds.

CREATE TABLE chargebacks (
  id TEXT PRIMARY KEY,
  merchant_id TEXT NOT NULL REFERENCES merchants(id),
  subject_type TEXT NOT NULL CHECK (subject_type IN ('s2s', 'v1')),
  subject_id TEXT NOT NULL,
  amount INTEGER NOT NULL CHECK (amount > 0),
  currency TEXT NOT NULL,
  reason TEXT NOT NULL CHECK (reason IN ('fraudulent', 'product_not_received', 'duplicate', 'unrecognized', 'credit_not_processed', 'general')),
  status TEXT NOT NULL CHECK (status IN ('open', 'won', 'lost')),
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL
);
CREATE INDEX chargebacks_subject ON chargebacks (subject_id, created_at);
CREATE INDEX chargebacks_created ON chargebacks (created_at, id);

-- One settlement per merchant and currency per run of `sandbox settle`; created, then paid.
CREATE TABLE settlements (
  id TEXT PRIMARY KEY,
  merchant_id TEXT NOT NULL REFERENCES merchants(id),
  currency TEXT NOT NULL,
  gross INTEGER NOT NULL,
  fees INTEGER NOT NULL,
  refunds INTEGER NOT NULL,
  net INTEGER NOT NULL,
  count INTEGER NOT NULL CHECK (count > 0),
  status TEXT NOT NULL CHECK (status IN ('created', 'paid')),
  pay_at INTEGER NOT NULL,
  paid_at INTEGER,
  created_at INTEGER NOT NULL
);
CREATE INDEX settlements_created ON settlements (created_at, id);

-- The payments a settlement carries. The unique subject makes "settled at most once" a rule of
-- the schema, not of the code.
CREATE TABLE settlement_items (
  settlement_id TEXT NOT NULL REFERENCES settlements(id),
  subject_type TEXT NOT NULL CHECK (subject_type IN ('s2s', 'v1')),
  subject_id TEXT NOT NULL,
  gross INTEGER NOT NULL,
  fee INTEGER NOT NULL,
  refunded INTEGER NOT NULL,
  PRIMARY KEY (subject_type, subject_id)
);
CREATE INDEX settlement_items_settlement ON settlement_items (settlement_id);
