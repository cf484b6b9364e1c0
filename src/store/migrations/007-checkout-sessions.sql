-- Hosted checkout sessions (issue 5): one row per session. `token` is the unguessable part of the
-- page URL; `csrf` is carried by every form of the page. `payment_id` is the payment that
-- completed the session; `last_payment_id` the latest attempt (a declined card, a failed iDEAL
-- payment), which the page reports while the session stays open. `attempt` holds what the page
-- remembers between steps (the iDEAL bank chosen). Times are sandbox-clock ms, money minor units.
CREATE TABLE checkout_sessions (
  id TEXT PRIMARY KEY,
  merchant_id TEXT NOT NULL REFERENCES merchants(id),
  token TEXT NOT NULL UNIQUE,
  csrf TEXT NOT NULL,
  status TEXT NOT NULL CHECK (status IN ('open', 'complete', 'expired')),
  amount INTEGER NOT NULL,
  currency TEXT NOT NULL,
  methods TEXT NOT NULL,
  logo_url TEXT,
  return_url TEXT NOT NULL,
  reference TEXT,
  customer_email TEXT,
  webhook_url TEXT,
  payment_id TEXT,
  last_payment_id TEXT,
  attempt TEXT NOT NULL DEFAULT '{}',
  expires_at INTEGER NOT NULL,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL,
  completed_at INTEGER
);
CREATE INDEX checkout_sessions_merchant_created ON checkout_sessions (merchant_id, created_at);
CREATE INDEX checkout_sessions_last_payment ON checkout_sessions (last_payment_id);
