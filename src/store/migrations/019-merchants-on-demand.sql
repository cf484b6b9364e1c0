-- Merchants on demand (POST /_sandbox/merchants). created_by tells the merchants the fixtures seed
-- ('fixtures', never deleted, restored by every reset) from the ones made through the control API
-- ('api', deletable, gone after a full reset). currency is what the sandbox makes objects in when
-- it invents them for the merchant (event triggers). A scenario entry may be scoped to one merchant,
-- so a worker's scripted outcome never decides another worker's payment.
ALTER TABLE merchants ADD COLUMN created_by TEXT NOT NULL DEFAULT 'fixtures' CHECK (created_by IN ('fixtures', 'api'));
ALTER TABLE merchants ADD COLUMN currency TEXT NOT NULL DEFAULT 'EUR';
ALTER TABLE scenario_entries ADD COLUMN merchant_id TEXT REFERENCES merchants(id);
CREATE INDEX terminals_merchant ON terminals (merchant_id);
CREATE INDEX api_keys_merchant ON api_keys (merchant_id);
