-- API faults (issue 16): fault_rules also holds rules that shape answers of /api/* and /v1/*
-- (latency, status, reset, timeout, lost-answer). Rebuilt because SQLite cannot change a CHECK or
-- a UNIQUE in place:
-- - scope 'route': an API rule for one route, target "METHOD PATH" (either part may be left out,
--   a PATH ending in * is a prefix); API rules without a route are scope 'global';
-- - merchant: the rule applies only to this merchant's requests and webhooks ('' = every merchant);
-- - probability: the chance (0 < p <= 1) that an API rule fires on a request; NULL = always;
-- - source 'scenario': rules from a scenario document's "faults", replaced when the file reloads.

CREATE TABLE fault_rules_new (
  id TEXT PRIMARY KEY,
  scope TEXT NOT NULL CHECK (scope IN ('global', 'endpoint', 'url', 'route')),
  target TEXT NOT NULL DEFAULT '',
  merchant TEXT NOT NULL DEFAULT '',
  fault TEXT NOT NULL,
  value TEXT,
  probability REAL CHECK (probability IS NULL OR (probability > 0 AND probability <= 1)),
  source TEXT NOT NULL CHECK (source IN ('flag', 'api', 'scenario')),
  created_at INTEGER NOT NULL,
  UNIQUE (scope, target, merchant, fault)
);

INSERT INTO fault_rules_new (id, scope, target, merchant, fault, value, probability, source, created_at)
  SELECT id, scope, target, '', fault, value, NULL, source, created_at FROM fault_rules;

DROP TABLE fault_rules;
ALTER TABLE fault_rules_new RENAME TO fault_rules;
