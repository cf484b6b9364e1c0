// Hosted checkout sessions (migration 007): created by POST /v1/checkout/sessions, found by the
// page through their URL token, and moved open -> complete | expired exactly once.
import type { Db } from './open-database.js';
import type { CheckoutMethod, CheckoutStatus } from '../domain/vocabularies.js';

/** What the page remembers between its steps. */
export interface CheckoutAttempt {
  /** The iDEAL bank the customer chose; the outcome picker is shown for it. */
  idealBank?: string;
}

/** A stored session. Money in minor units, times in sandbox-clock milliseconds. */
export interface CheckoutSession {
  id: string;
  merchantId: string;
  token: string;
  csrf: string;
  status: CheckoutStatus;
  amount: number;
  currency: string;
  methods: CheckoutMethod[];
  logoUrl: string | null;
  returnUrl: string;
  reference: string | null;
  customerEmail: string | null;
  webhookUrl: string | null;
  paymentId: string | null;
  lastPaymentId: string | null;
  attempt: CheckoutAttempt;
  expiresAt: number;
  createdAt: number;
  updatedAt: number;
  completedAt: number | null;
}

const COLUMNS = `id, merchant_id AS merchantId, token, csrf, status, amount, currency, methods, logo_url AS logoUrl,
  return_url AS returnUrl, reference, customer_email AS customerEmail, webhook_url AS webhookUrl, payment_id AS paymentId,
  last_payment_id AS lastPaymentId, attempt, expires_at AS expiresAt, created_at AS createdAt, updated_at AS updatedAt,
  completed_at AS completedAt`;

type Row = Omit<CheckoutSession, 'methods' | 'attempt'> & { methods: string; attempt: string };

function fromRow(row: Row | undefined): CheckoutSession | undefined {
  return row ? { ...row, methods: JSON.parse(row.methods), attempt: JSON.parse(row.attempt) } : undefined;
}

/** Prepared statements over the checkout_sessions table. */
export function createCheckoutSessionsRepo(db: Db) {
  const insert = db.prepare(`INSERT INTO checkout_sessions (id, merchant_id, token, csrf, status, amount, currency, methods, logo_url,
    return_url, reference, customer_email, webhook_url, payment_id, last_payment_id, attempt, expires_at, created_at, updated_at,
    completed_at) VALUES (@id, @merchantId, @token, @csrf, @status, @amount, @currency, @methods, @logoUrl, @returnUrl, @reference,
    @customerEmail, @webhookUrl, @paymentId, @lastPaymentId, @attempt, @expiresAt, @createdAt, @updatedAt, @completedAt)`);
  const byId = db.prepare(`SELECT ${COLUMNS} FROM checkout_sessions WHERE id = ?`);
  const byToken = db.prepare(`SELECT ${COLUMNS} FROM checkout_sessions WHERE token = ?`);
  const byLastPayment = db.prepare(`SELECT ${COLUMNS} FROM checkout_sessions WHERE last_payment_id = ?`);
  const finish = db.prepare(
    "UPDATE checkout_sessions SET status = ?, payment_id = ?, completed_at = ?, updated_at = ? WHERE id = ? AND status = 'open'",
  );
  const setAttempt = db.prepare('UPDATE checkout_sessions SET last_payment_id = ?, attempt = ?, updated_at = ? WHERE id = ?');

  return {
    insert: (s: CheckoutSession) => insert.run({ ...s, methods: JSON.stringify(s.methods), attempt: JSON.stringify(s.attempt) }),
    get: (id: string) => fromRow(byId.get(id) as Row | undefined),
    byToken: (token: string) => fromRow(byToken.get(token) as Row | undefined),
    /** The session whose latest attempt is this payment (how a payment finds its session). */
    byLastPayment: (paymentId: string) => fromRow(byLastPayment.get(paymentId) as Row | undefined),
    /** Moves an open session to complete or expired; false when it was no longer open (lost race). */
    finish: (id: string, status: Exclude<CheckoutStatus, 'open'>, paymentId: string | null, now: number) =>
      finish.run(status, paymentId, now, now, id).changes === 1,
    /** Records the latest payment attempt and the page's step state. */
    setAttempt: (id: string, lastPaymentId: string | null, attempt: CheckoutAttempt, now: number) =>
      setAttempt.run(lastPaymentId, JSON.stringify(attempt), now, id),
  };
}
