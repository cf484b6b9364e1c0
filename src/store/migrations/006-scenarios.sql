-- Scripted outcomes for CI (--scenario FILE, POST /_sandbox/scenarios): a queue of entries, each
-- matching payments by terminal, reference pattern, amount (minor units) and mop. The first
-- matching entry with uses left decides a payment's outcome and loses one use.

CREATE TABLE scenario_entries (
  id INTEGER PRIMARY KEY,
  scenario TEXT NOT NULL,
  ter_no INTEGER,
  reference TEXT,
  amount INTEGER,
  mop TEXT,
  outcome TEXT NOT NULL,
  times INTEGER NOT NULL CHECK (times > 0),
  used INTEGER NOT NULL DEFAULT 0,
  created_at INTEGER NOT NULL
);
CREATE INDEX scenario_entries_open ON scenario_entries (id) WHERE used < times;
