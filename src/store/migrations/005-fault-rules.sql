-- Fault injection (issue 6): rules that shape webhook attempts on purpose, scoped to one webhook
-- endpoint, one URL, or every delivery (scope 'global', target ''). Rules set with --faults at
-- start are marked 'flag' and replaced at every start; rules set through the control API stay.

CREATE TABLE fault_rules (
  id TEXT PRIMARY KEY,
  scope TEXT NOT NULL CHECK (scope IN ('global', 'endpoint', 'url')),
  target TEXT NOT NULL DEFAULT '',
  fault TEXT NOT NULL,
  value TEXT,
  source TEXT NOT NULL CHECK (source IN ('flag', 'api')),
  created_at INTEGER NOT NULL,
  UNIQUE (scope, target, fault)
);
