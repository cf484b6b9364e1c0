-- transactions_status (order_status, created_at) is a prefix of transactions_status_created
-- (order_status, created_at, trans_id) from 009: every query it served is served by that one, and
-- each index costs a page write per insert and status change.
DROP INDEX IF EXISTS transactions_status;
