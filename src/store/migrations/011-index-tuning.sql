-- Index tuning after profiling creates: each index on a table a create writes costs about 10 us
-- and a page write per group commit, so each one here has to earn its place.
--
-- Completing a checkout session or a settlement cancels its pending job by kind and subject;
-- without an index each cancel read the whole jobs table, which only grows. Challenge expiry jobs
-- are left out: they are never cancelled (the expiry finds the challenge completed and does
-- nothing), so a challenge create does not pay for this index.
CREATE INDEX jobs_pending_subject ON jobs (subject_id, kind) WHERE done = 0 AND kind <> 'challenge.expire';

-- Planned for an expiry sweep that was never written: no query reads it.
DROP INDEX IF EXISTS challenges_open;

-- The dashboard's search by reference now goes through the unique (ter_no, reference) index, one
-- probe per terminal (transactions-repo.ts).
DROP INDEX IF EXISTS transactions_reference;
