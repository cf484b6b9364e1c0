// Card number rules: Luhn, brand from the leading digits, and the gateway's mask.

/** True when the digits pass the Luhn check. */
export function luhnValid(digits: string): boolean {
  if (!/^\d+$/.test(digits)) return false;
  let sum = 0;
  let double = false;
  for (let i = digits.length - 1; i >= 0; i--) {
    let d = digits.charCodeAt(i) - 48;
    if (double) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
    double = !double;
  }
  return sum % 10 === 0;
}

/** Card networks the sandbox recognises, in the spelling the gateway returns in `mop`. */
export type CardBrand = 'VISA' | 'MASTERCARD' | 'AMEX' | 'DISCOVER' | 'DINERS' | 'JCB' | 'UNIONPAY' | 'MAESTRO' | 'RUPAY' | 'CARD';

const BRAND_PREFIXES: Array<[RegExp, CardBrand]> = [
  [/^3[47]/, 'AMEX'],
  [/^(5[1-5]|2(2[2-9]|[3-6]\d|7[01]|720))/, 'MASTERCARD'],
  // Discover's 6011/644-649 before RuPay's broad 60/65, or Stripe's Discover test card reads as RuPay.
  [/^(6011|64[4-9])/, 'DISCOVER'],
  [/^(60|65|81|82|508)/, 'RUPAY'],
  [/^(36|30[0-5]|38|39)/, 'DINERS'],
  [/^35(2[89]|[3-8])/, 'JCB'],
  [/^62/, 'UNIONPAY'],
  [/^(5018|5020|5038|6304|6759|676[1-3])/, 'MAESTRO'],
  [/^4/, 'VISA'],
];

/** The card network of a number, from its leading digits; CARD when none matches. */
export function cardBrand(digits: string): CardBrand {
  for (const [prefix, brand] of BRAND_PREFIXES) if (prefix.test(digits)) return brand;
  return 'CARD';
}

/** spec §2.2: first 6 and last 4 digits visible, the middle replaced by X. */
export function maskCardNumber(digits: string): string {
  if (digits.length <= 10) return digits.replace(/\d(?=\d{4})/g, 'X');
  return digits.slice(0, 6) + 'X'.repeat(digits.length - 10) + digits.slice(-4);
}

/** Strips the spaces and dashes people type inside card numbers. */
export function normaliseCardNumber(text: string): string {
  return text.replace(/[\s-]/g, '');
}

/** True when a two-digit month/year expiry lies in the past at `nowMs` (cards expire after their month). */
export function expiryInPast(month: number, twoDigitYear: number, nowMs: number): boolean {
  const now = new Date(nowMs);
  const year = 2000 + twoDigitYear;
  const currentYear = now.getUTCFullYear();
  const currentMonth = now.getUTCMonth() + 1;
  return year < currentYear || (year === currentYear && month < currentMonth);
}

/** The first moment (UTC ms) a card valid through `month`/`year` (four digits) is expired: the start of the next month. */
export function expiryMoment(month: number, year: number): number {
  return Date.UTC(year, month, 1);
}
