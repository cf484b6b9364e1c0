// Request bodies for the seeded credentials of fixtures/default.json. Every create gets a unique
// reference (a run prefix plus a counter), as a merchant's order ids would be.
import { buildEncryptedData } from '../../dist/index.js';

/** Terminal 1001 and the bearer key of mer_sandbox (docs/decisions.md). */
export const CREDS = { terNO: 1001, publicKey: 'pk_test_1001', privateKey: 'pv_test_1001', apiKey: 'sk_test_sandbox' };

/** Cards of the docs/decisions.md test table used by the bench. */
export const CARDS = { frictionless: '4242424242424242', challenge: '4000000000003220' };

const runPrefix = `bench${Date.now().toString(36)}`;
let counter = 0;

/** A reference never used before in this run. */
export function uniqueReference(label) {
  counter += 1;
  return `${runPrefix}-${label}-${counter}`;
}

/** The fields of a POST /api/s2s card payment (spec §2.1), on terminal 1001 unless `terminal` ({terNO, publicKey}) says otherwise. */
export function s2sFields({ card, reference, webhookUrl, amount = '10.50', terminal = CREDS }) {
  return {
    public_key: terminal.publicKey,
    terNO: terminal.terNO,
    'integration-type': 's2s',
    bill_amt: amount,
    bill_currency: 'EUR',
    product_name: 'Bench mug',
    reference,
    webhook_url: webhookUrl,
    return_url: 'http://127.0.0.1:9/return',
    mop: 'CC',
    ccno: card,
    ccvv: '123',
    month: '12',
    year: '30',
    fullname: 'Bench Customer',
    bill_email: 'bench@example.com',
  };
}

/** The form body of POST /api/s2s/encrypt: the spec §4.2 query string, encrypted, public_key appended. */
export function encryptedForm(fields) {
  const { terNO, public_key, ...rest } = fields;
  const plaintext = new URLSearchParams({ ...rest, terNO: String(terNO), public_key, encryption_method: 'none' }).toString();
  const data = buildEncryptedData(plaintext, { publicKey: CREDS.publicKey, privateKey: CREDS.privateKey });
  return `encrypted_data=${encodeURIComponent(data)}`;
}

/** POST /api/transactions/refund-request (spec §2.4). */
export function refundFields(transID, refundAmount) {
  return { transID, refundAmount, public_key: CREDS.publicKey };
}

/** POST /v1/payments (spec §4.5). */
export function v1PaymentFields({ webhookUrl }) {
  return {
    amount: 1050,
    currency: 'EUR',
    method: 'card',
    routing: 'smart',
    customer: { country: 'NL' },
    return_url: 'http://127.0.0.1:9/return',
    webhook_url: webhookUrl,
  };
}

/** POST /v1/checkout/sessions (spec §4.4). */
export function checkoutFields() {
  return {
    amount: 1050,
    currency: 'EUR',
    methods: ['card'],
    branding: { logo_url: 'https://example.com/logo.png' },
    return_url: 'http://127.0.0.1:9/return',
  };
}

/** The headers of a JSON request, with the bearer key when asked. */
export function jsonHeaders(bearer = false) {
  return bearer ? { 'content-type': 'application/json', authorization: `Bearer ${CREDS.apiKey}` } : { 'content-type': 'application/json' };
}
