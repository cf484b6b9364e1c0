// How an S2S transaction begins: Pending, nothing refunded, with the request's order, card summary
// (never the full number) and customer fields, and a status token for its authstatus URL.
import { cardBrand, maskCardNumber } from '../domain/card.js';
import { newToken } from '../domain/ids.js';
import { parseDecimalAmount } from '../domain/money.js';
import { ORDER_STATUS } from '../domain/order-status.js';
import type { ScriptedOutcome } from '../domain/outcomes.js';
import type { S2SPaymentInput } from '../contracts/s2s-schema.js';
import type { Terminal } from '../store/credentials-repo.js';
import type { Transaction } from '../store/transactions-repo.js';
import { present } from '../errors.js';

/** What a new transaction is made from besides its request. */
export interface TransactionStart {
  transId: string;
  terminal: Terminal;
  billIp: string | null;
  /** The normalised card number of a CC or DC payment. */
  number: string | undefined;
  script: ScriptedOutcome;
  now: number;
}

/** A new Pending transaction, not stored yet. */
export function newTransaction(input: S2SPaymentInput, start: TransactionStart): Transaction {
  const { number, now } = start;
  return {
    transId: start.transId,
    merchantId: start.terminal.merchantId,
    terNo: start.terminal.terNo,
    reference: input.reference,
    amount: present(parseDecimalAmount(input.bill_amt, input.bill_currency), 'bill_amt (the request schema checked it)'),
    currency: input.bill_currency,
    mop: input.mop,
    brand: number ? cardBrand(number) : input.mop,
    ccno: number ? maskCardNumber(number) : null,
    orderStatus: ORDER_STATUS.pending.code,
    response: pendingResponse(input.mop, start.script.challenge),
    productName: input.product_name,
    webhookUrl: input.webhook_url,
    returnUrl: input.return_url,
    billIp: start.billIp,
    customer: pickCustomer(input),
    encryptionMethod: input.encryption_method ?? 'none',
    script: start.script,
    statusToken: newToken(),
    refunded: 0,
    createdAt: now,
    updatedAt: now,
  };
}

/** What a Pending transaction says it waits for: the customer at authurl, or the acquirer. */
function pendingResponse(mop: string, challenge: boolean): string {
  if (!challenge) return 'Payment pending: awaiting the acquirer';
  return mop === 'CC' || mop === 'DC'
    ? 'Payment pending: redirect the customer to authurl to complete 3-D Secure authentication'
    : 'Payment pending: redirect the customer to authurl to complete the payment';
}

const CUSTOMER_FIELDS = [
  'fullname',
  'bill_email',
  'bill_address',
  'bill_city',
  'bill_state',
  'bill_zip',
  'bill_country',
  'bill_phone',
  'source',
  'source_url',
  'vpa',
  'bank',
] as const;

function pickCustomer(input: S2SPaymentInput): Record<string, string> {
  const out: Record<string, string> = {};
  for (const field of CUSTOMER_FIELDS) if (input[field]) out[field] = input[field];
  return out;
}
