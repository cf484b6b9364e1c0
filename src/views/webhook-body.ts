// What a webhook carries. S2S transactions: the spec §6.1 query string, plain or as `data=<encrypted>`.
// /v1/ events: the spec §6.2 JSON envelope {event, id, data, created_at}.
import { encryptText, type TerminalKeys } from '../crypto/s2s-cipher.js';
import { formatDecimalAmount } from '../domain/money.js';
import { statusText } from '../domain/order-status.js';
import type { EventRecord } from '../store/events-repo.js';
import type { Transaction } from '../store/transactions-repo.js';
import { eventData, type S2SEventFields } from './event.js';
import { iso } from './time.js';

/** The spec §6.1 fields of a transaction's webhook, plus `response` saying why. */
export function s2sWebhookFields(t: Transaction): S2SEventFields {
  return {
    bill_currency: t.currency,
    transID: t.transId,
    mop: t.brand,
    ccno: t.ccno ?? '',
    reference: t.reference,
    order_status: String(t.orderStatus),
    bill_amt: formatDecimalAmount(t.amount, t.currency),
    status: statusText(t.orderStatus),
    response: t.response,
  };
}

/** Encodes fields as a query string with spaces as '+' (application/x-www-form-urlencoded). */
export function formEncode(fields: Record<string, string>): string {
  return new URLSearchParams(fields).toString();
}

/** The body POSTed to an S2S webhook_url: the query string, or `data=<cipher>` with encryption_method=aes256. */
export function s2sWebhookBody(fields: Record<string, string>, encryptionMethod: 'aes256' | 'none', keys: TerminalKeys): string {
  const plain = formEncode(fields);
  return encryptionMethod === 'aes256' ? formEncode({ data: encryptText(plain, keys) }) : plain;
}

/**
 * The spec §6.2 envelope of an event (its data with data.object), serialised exactly once so the
 * signature covers these bytes: indented with two spaces and ending with a newline, as a gateway's
 * pretty-printed bodies are, so that the text does not survive a parse and serialise again
 * (JSON.stringify, json_encode, json.dumps all write other bytes). A handler that verifies the HMAC
 * over re-serialised JSON instead of the bytes received then fails here, as it would in production,
 * instead of passing because the sandbox happened to send what JSON.stringify writes (docs/decisions.md).
 */
export function eventEnvelope(event: EventRecord): string {
  return `${JSON.stringify({ event: event.type, id: event.id, data: eventData(event), created_at: iso(event.createdAt) }, null, 2)}\n`;
}
