-- An endpoint's own signature mode (plain, timestamped or standard); NULL follows the sandbox's
-- --signature, which is what every endpoint made before this migration keeps doing.
ALTER TABLE webhook_endpoints ADD COLUMN signature TEXT CHECK (signature IN ('plain', 'timestamped', 'standard'));
