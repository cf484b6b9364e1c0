-- S2S refund requests (POST /api/transactions/refund-request). A pending row reserves its amount:
-- what is left to refund is the transaction amount minus every refund that has not failed, so
-- the check and the reservation happen in one transaction and concurrent requests cannot exceed it.
-- Named s2s_refunds so the /v1/ refunds of the bearer API can keep a table of their own.

CREATE TABLE s2s_refunds (
  id TEXT PRIMARY KEY,
  trans_id TEXT NOT NULL REFERENCES transactions(trans_id),
  merchant_id TEXT NOT NULL REFERENCES merchants(id),
  amount INTEGER NOT NULL CHECK (amount > 0),
  currency TEXT NOT NULL,
  status TEXT NOT NULL CHECK (status IN ('pending', 'succeeded', 'failed')),
  failure_reason TEXT,
  created_at INTEGER NOT NULL,
  completed_at INTEGER
);
CREATE INDEX s2s_refunds_trans ON s2s_refunds (trans_id, created_at);
