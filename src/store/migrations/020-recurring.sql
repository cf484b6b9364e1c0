-- Life after the first payment (issue 33): merchant-initiated charges on stored tokens, a token's
-- scripted future, cards that age with the sandbox clock, SEPA returns and authorisations that lapse.

-- Who started a payment, whether it stored its card for off-session use, the advice a decline
-- carries for retry logic, and why a SEPA debit came back ({"code","message"} as JSON).
ALTER TABLE payments ADD COLUMN initiator TEXT NOT NULL DEFAULT 'customer' CHECK (initiator IN ('customer', 'merchant'));
ALTER TABLE payments ADD COLUMN setup_future_usage TEXT CHECK (setup_future_usage IN ('off_session'));
ALTER TABLE payments ADD COLUMN advice_code TEXT;
ALTER TABLE payments ADD COLUMN return_reason TEXT;

-- The customer-initiated payment that stored the token for off-session use (merchant-initiated
-- charges refer to it), what its next charges are scripted to do (a JSON list, used up one per
-- charge), and whether the issuer renews the card at its expiry.
ALTER TABLE tokens ADD COLUMN off_session_payment_id TEXT;
ALTER TABLE tokens ADD COLUMN scripted_outcomes TEXT NOT NULL DEFAULT '[]';
ALTER TABLE tokens ADD COLUMN renews INTEGER NOT NULL DEFAULT 0;

-- A settlement claws back a SEPA return as it does a refund or a lost chargeback. SQLite cannot
-- change a CHECK in place: the table is rebuilt with its indexes (migration 012's way).
CREATE TABLE settlement_adjustments_next (
  settlement_id TEXT NOT NULL REFERENCES settlements(id),
  subject_type TEXT NOT NULL CHECK (subject_type IN ('s2s', 'v1')),
  subject_id TEXT NOT NULL,
  kind TEXT NOT NULL CHECK (kind IN ('refund', 'chargeback', 'return')),
  chargeback_id TEXT UNIQUE REFERENCES chargebacks(id),
  amount INTEGER NOT NULL CHECK (amount < 0),
  CHECK ((kind = 'chargeback') = (chargeback_id IS NOT NULL))
);
INSERT INTO settlement_adjustments_next (rowid, settlement_id, subject_type, subject_id, kind, chargeback_id, amount)
  SELECT rowid, settlement_id, subject_type, subject_id, kind, chargeback_id, amount FROM settlement_adjustments;
DROP TABLE settlement_adjustments;
ALTER TABLE settlement_adjustments_next RENAME TO settlement_adjustments;
CREATE INDEX settlement_adjustments_settlement ON settlement_adjustments (settlement_id);
CREATE INDEX settlement_adjustments_subject ON settlement_adjustments (subject_type, subject_id);
