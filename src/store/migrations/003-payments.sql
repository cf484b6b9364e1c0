-- The bearer payment API (/v1/): payments, their refunds and card tokens. Money is integer minor
-- units, times are sandbox-clock milliseconds. Named refunds_v1 so the S2S refund requests keep
-- a table of their own (s2s_refunds).

CREATE TABLE payments (
  id TEXT PRIMARY KEY,
  merchant_id TEXT NOT NULL REFERENCES merchants(id),
  amount INTEGER NOT NULL CHECK (amount > 0),
  currency TEXT NOT NULL,
  method TEXT NOT NULL,
  routing TEXT NOT NULL,
  acquirer TEXT NOT NULL,
  customer TEXT NOT NULL DEFAULT '{}',
  card_brand TEXT NOT NULL,
  card_last4 TEXT NOT NULL,
  card_exp_month INTEGER NOT NULL,
  card_exp_year INTEGER NOT NULL,
  token TEXT,
  reference TEXT,
  description TEXT,
  metadata TEXT NOT NULL DEFAULT '{}',
  capture INTEGER NOT NULL,
  amount_captured INTEGER NOT NULL DEFAULT 0,
  amount_refunded INTEGER NOT NULL DEFAULT 0,
  status TEXT NOT NULL,
  decline_code TEXT,
  failure_message TEXT,
  webhook_url TEXT,
  return_url TEXT,
  outcome TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL
);
CREATE INDEX payments_merchant_created ON payments (merchant_id, created_at, id);
CREATE INDEX payments_merchant_status ON payments (merchant_id, status, created_at, id);

-- A pending row reserves its amount: what is left to refund is the captured amount minus every
-- refund that has not failed, checked and reserved in one transaction.
CREATE TABLE refunds_v1 (
  id TEXT PRIMARY KEY,
  merchant_id TEXT NOT NULL REFERENCES merchants(id),
  payment_id TEXT NOT NULL REFERENCES payments(id),
  amount INTEGER NOT NULL CHECK (amount > 0),
  currency TEXT NOT NULL,
  reason TEXT,
  status TEXT NOT NULL CHECK (status IN ('pending', 'succeeded', 'failed')),
  failure_reason TEXT,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL
);
CREATE INDEX refunds_v1_payment ON refunds_v1 (payment_id, created_at);
CREATE INDEX refunds_v1_merchant_created ON refunds_v1 (merchant_id, created_at, id);

-- Cards saved by POST /v1/tokens. The number is kept so a payment with the token replays the
-- test card's scripted outcome; the API never returns it. Predefined test tokens are not rows.
CREATE TABLE tokens (
  id TEXT PRIMARY KEY,
  merchant_id TEXT NOT NULL REFERENCES merchants(id),
  number TEXT NOT NULL,
  brand TEXT NOT NULL,
  last4 TEXT NOT NULL,
  exp_month INTEGER NOT NULL,
  exp_year INTEGER NOT NULL,
  created_at INTEGER NOT NULL
);
CREATE INDEX tokens_merchant ON tokens (merchant_id, created_at);
