-- Clawbacks: a refund or a lost chargeback on a payment that an earlier settlement already paid
-- out is taken back in the next settlement of that merchant and currency, which may then carry
-- no new payment at all. So settlements gain an `adjustments` total (the clawbacks, <= 0) and
-- `count` may be 0. SQLite cannot change a CHECK in place: the table is rebuilt (migrations run
-- with foreign keys off and are checked before they commit, open-database.ts).
CREATE TABLE settlements_next (
  id TEXT PRIMARY KEY,
  merchant_id TEXT NOT NULL REFERENCES merchants(id),
  currency TEXT NOT NULL,
  gross INTEGER NOT NULL,
  fees INTEGER NOT NULL,
  refunds INTEGER NOT NULL,
  adjustments INTEGER NOT NULL DEFAULT 0 CHECK (adjustments <= 0),
  net INTEGER NOT NULL,
  count INTEGER NOT NULL CHECK (count >= 0),
  status TEXT NOT NULL CHECK (status IN ('created', 'paid')),
  pay_at INTEGER NOT NULL,
  paid_at INTEGER,
  created_at INTEGER NOT NULL
);
INSERT INTO settlements_next (id, merchant_id, currency, gross, fees, refunds, adjustments, net, count, status, pay_at, paid_at, created_at)
  SELECT id, merchant_id, currency, gross, fees, refunds, 0, net, count, status, pay_at, paid_at, created_at FROM settlements;
DROP TABLE settlements;
ALTER TABLE settlements_next RENAME TO settlements;
CREATE INDEX settlements_created ON settlements (created_at, id);

-- One clawback: a refund that succeeded after the payment was settled (its amount beyond what the
-- settlement and earlier clawbacks deducted), or a chargeback lost after it (each chargeback at
-- most once: the unique chargeback_id). Amounts are negative minor units.
CREATE TABLE settlement_adjustments (
  settlement_id TEXT NOT NULL REFERENCES settlements(id),
  subject_type TEXT NOT NULL CHECK (subject_type IN ('s2s', 'v1')),
  subject_id TEXT NOT NULL,
  kind TEXT NOT NULL CHECK (kind IN ('refund', 'chargeback')),
  chargeback_id TEXT UNIQUE REFERENCES chargebacks(id),
  amount INTEGER NOT NULL CHECK (amount < 0),
  CHECK ((kind = 'chargeback') = (chargeback_id IS NOT NULL))
);
CREATE INDEX settlement_adjustments_settlement ON settlement_adjustments (settlement_id);
CREATE INDEX settlement_adjustments_subject ON settlement_adjustments (subject_type, subject_id);

-- Also: 011 first shipped jobs_pending_subject with "AND kind <> 'challenge.expire'" and was then
-- edited in place. A database migrated by that first version kept the old index, which the job
-- cancel (kind = ? AND subject_id = ? AND done = 0) cannot use, so every completed challenge
-- scanned every pending job. Rebuilt here with 011's present definition.
DROP INDEX IF EXISTS jobs_pending_subject;
CREATE INDEX jobs_pending_subject ON jobs (subject_id, kind) WHERE done = 0;
