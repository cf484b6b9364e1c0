// Event data for tests that publish a change themselves: complete, as the services build it, since
// Change.event is typed by each event name's view schema.
import type { PaymentEventFields, S2SEventFields } from '../../src/views/event.js';

/** The data of a captured /v1/ payment's event (EUR 10.00, nothing refunded). */
export function capturedPaymentData(paymentId: string): PaymentEventFields {
  return {
    payment_id: paymentId,
    status: 'captured',
    amount: 1000,
    currency: 'EUR',
    reference: null,
    amount_captured: 1000,
    amount_refunded: 0,
    metadata: {},
  };
}

/** The spec §6.1 fields of an approved S2S transaction's event. */
export function approvedTransactionFields(transId: string): S2SEventFields {
  return {
    transID: transId,
    reference: 'order-1',
    order_status: '25',
    status: 'Test Approved',
    bill_amt: '10.00',
    bill_currency: 'EUR',
    mop: 'CC',
    ccno: '424242XXXXXX4242',
    response: 'Transaction approved (test mode)',
  };
}
