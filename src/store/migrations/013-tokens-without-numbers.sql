-- Card numbers at rest (issue 14): a token keeps what paying with it needs and nothing more: brand,
-- last 4, expiry and the scripted outcome of the test card it was saved from. Rows saved before
-- kept the full number; their outcome is derived from it here (the TEST_CARDS table of
-- src/domain/outcomes.ts when this migration was written; any other number gets the default, a
-- challenge approved when it passes), then the table is rebuilt without the column.
-- secure_delete zeroes the pages the old table frees, so the numbers do not linger in the file.
PRAGMA secure_delete = ON;
CREATE TABLE tokens_next (
  id TEXT PRIMARY KEY,
  merchant_id TEXT NOT NULL REFERENCES merchants(id),
  brand TEXT NOT NULL,
  last4 TEXT NOT NULL,
  exp_month INTEGER NOT NULL,
  exp_year INTEGER NOT NULL,
  outcome TEXT NOT NULL,
  created_at INTEGER NOT NULL
);
INSERT INTO tokens_next (id, merchant_id, brand, last4, exp_month, exp_year, outcome, created_at)
  SELECT id, merchant_id, brand, last4, exp_month, exp_year, CASE number
    WHEN '4242424242424242' THEN '{"challenge":false,"authorisation":{"result":"approve"},"refundFails":false,"chargeback":false}'
    WHEN '4000000000003220' THEN '{"challenge":true,"authorisation":{"result":"approve"},"refundFails":false,"chargeback":false}'
    WHEN '4000008400001629' THEN '{"challenge":true,"authorisation":{"result":"decline","code":"card_declined"},"refundFails":false,"chargeback":false}'
    WHEN '4000000000000002' THEN '{"challenge":false,"authorisation":{"result":"decline","code":"card_declined"},"refundFails":false,"chargeback":false}'
    WHEN '4000000000009995' THEN '{"challenge":false,"authorisation":{"result":"decline","code":"insufficient_funds"},"refundFails":false,"chargeback":false}'
    WHEN '4000000000009987' THEN '{"challenge":false,"authorisation":{"result":"decline","code":"lost_card"},"refundFails":false,"chargeback":false}'
    WHEN '4000000000009979' THEN '{"challenge":false,"authorisation":{"result":"decline","code":"stolen_card"},"refundFails":false,"chargeback":false}'
    WHEN '4000000000000069' THEN '{"challenge":false,"authorisation":{"result":"decline","code":"expired_card"},"refundFails":false,"chargeback":false}'
    WHEN '4000000000000127' THEN '{"challenge":false,"authorisation":{"result":"decline","code":"incorrect_cvc"},"refundFails":false,"chargeback":false}'
    WHEN '4000000000000119' THEN '{"challenge":false,"authorisation":{"result":"decline","code":"processing_error"},"refundFails":false,"chargeback":false}'
    WHEN '4000000000005126' THEN '{"challenge":false,"authorisation":{"result":"approve"},"refundFails":true,"chargeback":false}'
    WHEN '4000000000000259' THEN '{"challenge":false,"authorisation":{"result":"approve"},"refundFails":false,"chargeback":true}'
    WHEN '4999990000000015' THEN '{"challenge":false,"authorisation":{"result":"hang"},"refundFails":false,"chargeback":false}'
    ELSE '{"challenge":true,"authorisation":{"result":"approve"},"refundFails":false,"chargeback":false}'
  END, created_at FROM tokens;
DROP TABLE tokens;
ALTER TABLE tokens_next RENAME TO tokens;
CREATE INDEX tokens_merchant ON tokens (merchant_id, created_at);

-- Rejected requests of the card endpoints stored with an Idempotency-Key could carry the card in
-- their error message (a malformed card was echoed whole). Replaying a 4xx gains nothing: a retry
-- is refused the same way, so these stored answers go.
DELETE FROM idempotency_keys WHERE response_status BETWEEN 400 AND 499 AND path IN ('/v1/tokens', '/v1/payments');
PRAGMA secure_delete = OFF;
