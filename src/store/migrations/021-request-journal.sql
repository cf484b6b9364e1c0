-- The request journal: every request to the API, the customer pages and the control plane, with
-- its answer, masked before it is written (src/domain/journal-mask.ts). Bounded by count and age
-- (--journal-size, --journal-age): the oldest rows go first, by seq. merchant_id has no foreign key:
-- a control-plane request belongs to no merchant, and a merchant's reset deletes its rows by it.
-- ids holds the ids the request touched, space-separated with a space at each end, so one
-- instr(ids, ' pay_x ') finds them; the table is bounded, so a scan is cheap and no index is kept
-- up to date on every request.
CREATE TABLE request_journal (
  seq INTEGER PRIMARY KEY,
  id TEXT NOT NULL,
  merchant_id TEXT,
  surface TEXT NOT NULL CHECK (surface IN ('api', 'page', 'control')),
  method TEXT NOT NULL,
  path TEXT NOT NULL,
  query TEXT NOT NULL,
  status INTEGER NOT NULL,
  duration_ms REAL NOT NULL,
  started_at INTEGER NOT NULL,
  ended_at INTEGER NOT NULL,
  wall_at INTEGER NOT NULL,
  idempotency_key TEXT,
  request_headers TEXT NOT NULL,
  request_body TEXT,
  response_type TEXT,
  response_body TEXT,
  ids TEXT NOT NULL,
  traceparent TEXT,
  fault TEXT,
  script TEXT
);

-- The request each event was made by (runtime/request-scope.ts): the cause a timeline names for a
-- change; null for a change a job, the worker or a clock jump's due work made.
ALTER TABLE events ADD COLUMN request_id TEXT;

-- The W3C trace a request's traceparent started, kept with each object the request touched (the
-- first one wins): webhooks about the object carry a child traceparent of it.
CREATE TABLE object_traces (
  object_id TEXT PRIMARY KEY,
  merchant_id TEXT,
  trace_id TEXT NOT NULL,
  parent_id TEXT NOT NULL,
  request_id TEXT NOT NULL
) WITHOUT ROWID;
