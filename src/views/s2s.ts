// The S2S answers (spec §2.2, 2.4): the payment answer of POST /api/s2s, the authstatus answer,
// the refund-request answer, and the control API's fuller view of a transaction. The gateway
// answers with strings in its own order, so these keep the field order of the specification.
import * as z from 'zod';
import { lazySchema } from '../lazy-schema.js';
import { formatDecimalAmount, formatDecimalMoney } from '../domain/money.js';
import { ORDER_STATUS, statusText } from '../domain/order-status.js';
import type { S2SRefund } from '../store/s2s-refunds-repo.js';
import type { Transaction } from '../store/transactions-repo.js';
import { formatTdate, iso, isoTime } from './time.js';

/** The authstatus answer: the transaction as it is now. */
export const s2sStatusView = lazySchema(() =>
  z
    .object({
      transID: z.string(),
      reference: z.string(),
      order_status: z.string().describe('the order_status code as text, e.g. "1" (Test Approved)'),
      status: z.string().describe('the order_status text, e.g. "Test Approved"'),
      response: z.string(),
      bill_amt: z.string().describe('decimal(10,2) text, e.g. "10.00"'),
      bill_currency: z.string(),
      tdate: z.string().describe('"YYYY-MM-DD HH:MM:SS.ffffff" UTC of the last change'),
    })
    .meta({ id: 'Transaction' }),
);

/** The authstatus answer's TS type. */
export type S2SStatusView = z.infer<ReturnType<typeof s2sStatusView>>;

/** The spec §2.2 payment answer: exactly these fields, all strings. */
export const s2sPaymentView = lazySchema(() =>
  s2sStatusView()
    .extend({
      mop: z.string(),
      ccno: z.string().describe('the masked card number; empty for other methods'),
      tdate: z.string().describe('"YYYY-MM-DD HH:MM:SS.ffffff" UTC of the creation'),
      authurl: z.string().describe('the page to send the customer to; empty when no challenge waits'),
      authstatus: z.string().describe('the URL that answers the transaction as it is now'),
      authdata: z.string().describe('base64 JSON of the 3-D Secure ACS data; empty unless a card challenge waits'),
    })
    .meta({ id: 'S2SPaymentAnswer' }),
);

/** The payment answer's TS type. */
export type S2SPaymentView = z.infer<ReturnType<typeof s2sPaymentView>>;

/** The spec §2.3 answer of POST /api/s2s/encrypt: the 2.2 fields without mop, ccno, tdate, authstatus and authdata. */
export const s2sEncryptedPaymentView = lazySchema(() =>
  s2sPaymentView()
    .pick({
      authurl: true,
      transID: true,
      reference: true,
      order_status: true,
      status: true,
      bill_amt: true,
      bill_currency: true,
      response: true,
    })
    .meta({ id: 'S2SEncryptedPaymentAnswer' }),
);

/** The encrypted payment answer's TS type. */
export type S2SEncryptedPaymentView = z.infer<ReturnType<typeof s2sEncryptedPaymentView>>;

/** The spec §2.4 refund-request answer; bill_amt is the amount of this refund, as a number. */
export const s2sRefundView = lazySchema(() =>
  z
    .object({
      order_status: z.string(),
      message: z.string(),
      status: z.string(),
      bill_amt: z.number(),
      transID: z.string(),
      tdate: z.string().describe('"YYYY-MM-DD HH:MM:SS" UTC'),
      bill_currency: z.string(),
      response: z.string(),
      reference: z.string(),
    })
    .meta({ id: 'S2SRefundAnswer' }),
);

/** The refund-request answer's TS type. */
export type S2SRefundView = z.infer<ReturnType<typeof s2sRefundView>>;

/** A challenge as the control API's transaction view shows it. */
export const challengeSummaryView = lazySchema(() =>
  z.object({ state: z.string(), kind: z.string(), authurl: z.string(), expires_at: isoTime }),
);

/** GET /_sandbox/transactions/{transID}: the authstatus answer plus what the operator needs. */
export const controlTransactionView = lazySchema(() =>
  s2sStatusView()
    .extend({
      mop: z.string(),
      ccno: z.string(),
      terNO: z.number().int(),
      merchant_id: z.string(),
      webhook_url: z.string(),
      return_url: z.string(),
      refunded_amt: z.string().describe('decimal(10,2) text'),
      authentication: challengeSummaryView().nullable().describe('the challenge, when the transaction had one'),
      created_at: isoTime,
    })
    .meta({ id: 'ControlTransaction' }),
);

/** The control transaction view's TS type. */
export type ControlTransactionView = z.infer<ReturnType<typeof controlTransactionView>>;

/** The authstatus answer: the transaction as it is now. */
export function toS2SStatusView(t: Transaction): S2SStatusView {
  return {
    transID: t.transId,
    reference: t.reference,
    order_status: String(t.orderStatus),
    status: statusText(t.orderStatus),
    response: t.response,
    bill_amt: formatDecimalAmount(t.amount, t.currency),
    bill_currency: t.currency,
    tdate: formatTdate(t.updatedAt, true),
  };
}

/** The spec §2.2 answer; `authurl` is the challenge page ('' without one), `threeDs` whether it is a card's 3-D Secure. */
export function toS2SPaymentView(t: Transaction, links: { authurl: string; authstatus: string; threeDs: boolean }): S2SPaymentView {
  const { transID, reference, order_status, status, response, bill_amt, bill_currency } = toS2SStatusView(t);
  return {
    transID,
    reference,
    order_status,
    status,
    response,
    bill_amt,
    bill_currency,
    mop: t.brand,
    ccno: t.ccno ?? '',
    tdate: formatTdate(t.createdAt, true),
    authurl: links.authurl,
    authstatus: links.authstatus,
    // authdata is the 3-D Secure ACS data, so only card challenges carry it.
    authdata: links.threeDs
      ? Buffer.from(
          JSON.stringify({ transID: t.transId, messageVersion: '2.2.0', acsURL: links.authurl, challengeWindowSize: '05' }),
        ).toString('base64')
      : '',
  };
}

/** The spec §2.3 answer, in the gateway's order, from the 2.2 answer of the same payment. */
export function toS2SEncryptedPaymentView(full: S2SPaymentView): S2SEncryptedPaymentView {
  const { authurl, transID, reference, order_status, status, bill_amt, bill_currency, response } = full;
  return { authurl, transID, reference, order_status, status, bill_amt, bill_currency, response };
}

/** The spec §2.4 answer to a refund request; `left` is what stays refundable, in minor units. */
export function toS2SRefundView(refund: S2SRefund, t: Transaction, left: number): S2SRefundView {
  return {
    order_status: String(ORDER_STATUS.refundRequested.code),
    message: `Refund of ${formatDecimalMoney(refund.amount, refund.currency)} accepted; ${formatDecimalMoney(left, refund.currency)} is left to refund`,
    status: ORDER_STATUS.refundRequested.text,
    bill_amt: Number(formatDecimalAmount(refund.amount, refund.currency)),
    transID: t.transId,
    tdate: formatTdate(refund.createdAt, false),
    bill_currency: refund.currency,
    response: 'Refund request processed: the outcome follows by webhook (refund.succeeded or refund.failed)',
    reference: t.reference,
  };
}

/** The control API's transaction: the authstatus answer, the card, the merchant's URLs and the challenge. */
export function toControlTransactionView(
  t: Transaction,
  challenge: z.infer<ReturnType<typeof challengeSummaryView>> | null,
): ControlTransactionView {
  return {
    ...toS2SStatusView(t),
    mop: t.brand,
    ccno: t.ccno ?? '',
    terNO: t.terNo,
    merchant_id: t.merchantId,
    webhook_url: t.webhookUrl,
    return_url: t.returnUrl,
    refunded_amt: formatDecimalAmount(t.refunded, t.currency),
    authentication: challenge,
    created_at: iso(t.createdAt),
  };
}
