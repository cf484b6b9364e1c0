// The forms of the hosted checkout page (/pay/:token/...). The page reads them itself (a customer's
// browser sends them, and a wrong field is answered on the page); this is what they take.
import * as z from 'zod';
import { lazySchema } from '../lazy-schema.js';

/** POST /pay/:token/card, /ideal, /ideal/outcome and /sepa form. */
export const checkoutPageForm = lazySchema(() =>
  z.record(z.string(), z.string()).describe("the fields of the page's form (card details, bank, IBAN) and its csrf token"),
);
