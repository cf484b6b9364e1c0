// Money is integer minor units everywhere; decimal text only at the S2S edges (bill_amt,
// refundAmount). Parsing works on the digits, never through floating point.
import { currencyExponent } from './currencies.js';

/** Largest S2S amount: decimal(10,2). */
export const MAX_DECIMAL_AMOUNT = '99999999.99';

/**
 * Parses a decimal amount ("10", "10.5", "10.50", or a JSON number) into minor units of the
 * currency. Undefined when not a positive decimal with at most 2 decimals within decimal(10,2),
 * or when it has more decimals than the currency allows (JPY "10.50").
 */
export function parseDecimalAmount(value: unknown, currency = 'EUR'): number | undefined {
  let text: string;
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) return undefined;
    text = String(value);
  } else if (typeof value === 'string') {
    text = value.trim();
  } else {
    return undefined;
  }
  const match = /^(\d{1,8})(?:\.(\d{1,2}))?$/.exec(text);
  if (!match) return undefined;
  const exponent = currencyExponent(currency);
  const whole = match[1];
  const fraction = (match[2] ?? '').padEnd(2, '0');
  // The fraction may only carry as many non-zero digits as the currency has.
  if (exponent < 2 && fraction.slice(exponent).replace(/0/g, '') !== '') return undefined;
  const cents = Number(whole) * 100 + Number(fraction);
  if (cents <= 0) return undefined;
  return exponent >= 2 ? cents * 10 ** (exponent - 2) : cents / 10 ** (2 - exponent);
}

/**
 * Formats minor units as the gateway's decimal(10,2) text ("10.00"): always exactly 2 decimals, so a
 * value the sandbox sends can be sent back (bill_amt -> refundAmount). S2S amounts of three-decimal
 * currencies are whole hundredths by construction (input has at most 2 decimals), so this is exact.
 */
export function formatDecimalAmount(minor: number, currency = 'EUR'): string {
  const exponent = currencyExponent(currency);
  const cents = exponent >= 2 ? Math.round(minor / 10 ** (exponent - 2)) : minor * 10 ** (2 - exponent);
  const digits = String(cents).padStart(3, '0');
  return `${digits.slice(0, -2)}.${digits.slice(-2)}`;
}

/** The gateway's decimal text followed by the currency code ("10.50 EUR"): the one way answers and tables write an amount in a currency. */
export function formatDecimalMoney(minor: number, currency: string): string {
  return `${formatDecimalAmount(minor, currency)} ${currency}`;
}

/** Formats minor units for a person, with the currency ("€10.50", "¥1,000"). */
export function formatMoney(minor: number, currency: string, locale = 'en-GB'): string {
  const exponent = currencyExponent(currency);
  return new Intl.NumberFormat(locale, {
    style: 'currency',
    currency,
    minimumFractionDigits: exponent,
    maximumFractionDigits: exponent,
  }).format(minor / 10 ** exponent);
}
