-- The dashboard (/_sandbox/) lists every merchant's objects newest first, 50 at a time, with keyset
-- pagination on (created_at, id). These indexes let each list page (unfiltered, by status, or by
-- a reference search) read only the rows it shows, however many there are. Lists that already
-- have a fitting index (events by type, deliveries by status or time) use it.

CREATE INDEX transactions_created ON transactions (created_at, trans_id);
CREATE INDEX transactions_status_created ON transactions (order_status, created_at, trans_id);
CREATE INDEX transactions_reference ON transactions (reference);

CREATE INDEX payments_created ON payments (created_at, id);
CREATE INDEX payments_status_created ON payments (status, created_at, id);
CREATE INDEX payments_reference ON payments (reference) WHERE reference IS NOT NULL;

CREATE INDEX checkout_sessions_created ON checkout_sessions (created_at, id);
CREATE INDEX checkout_sessions_status_created ON checkout_sessions (status, created_at, id);
CREATE INDEX checkout_sessions_reference ON checkout_sessions (reference) WHERE reference IS NOT NULL;

CREATE INDEX events_created ON events (created_at, id);
