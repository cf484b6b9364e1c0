-- Completing a challenge, a checkout session or a settlement cancels its pending job by kind and
-- subject; without an index each cancel read the whole jobs table, which only grows. Partial, so
-- it holds only the pending jobs.
CREATE INDEX jobs_pending_subject ON jobs (subject_id, kind) WHERE done = 0;
