-- Index tuning after profiling creates: each index on a table a create writes costs about 10 us
-- and a page write per group commit, so each one here has to earn its place.
--
-- Completing a challenge, a checkout session or a settlement cancels its pending job by kind and
-- subject; without an index each cancel read the whole jobs table, which only grows. Partial: it
-- holds only the pending jobs.
CREATE INDEX jobs_pending_subject ON jobs (subject_id, kind) WHERE done = 0;

-- Planned for an expiry sweep that was never written: no query reads it.
DROP INDEX IF EXISTS challenges_open;

-- The dashboard's search by reference now goes through the unique (ter_no, reference) index, one
-- probe per terminal (transactions-repo.ts).
DROP INDEX IF EXISTS transactions_reference;
