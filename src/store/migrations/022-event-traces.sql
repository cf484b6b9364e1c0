-- The W3C trace each event belongs to (issue 35.5): the context its webhooks descend from, as a
-- traceparent naming the parent span (the request's span with --otlp, else the caller's), and the
-- caller's tracestate. Kept with the event, so every delivery of it (first try, retries, replays,
-- after a restart) carries a child traceparent of the same trace. Null when the event belongs to none.
ALTER TABLE events ADD COLUMN trace_parent TEXT;
ALTER TABLE events ADD COLUMN trace_state TEXT;

-- The flags and tracestate of the trace kept with an object, so a later event about it (a 3-D
-- Secure choice, a job) carries them on as the request that started the trace sent them.
ALTER TABLE object_traces ADD COLUMN flags TEXT;
ALTER TABLE object_traces ADD COLUMN trace_state TEXT;
