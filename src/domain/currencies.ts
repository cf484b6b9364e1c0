// ISO 4217 active currency codes and their minor-unit exponents. Amounts are stored in minor
// units, so the exponent is what turns "10.50" into 1050 (EUR) or 10500 (KWD).

const TWO_DECIMALS = `AED AFN ALL AMD ANG AOA ARS AUD AWG AZN BAM BBD BDT BGN BMD BND BOB BRL BSD BTN BWP BYN BZD
CAD CDF CHF CNY COP CRC CUP CVE CZK DKK DOP DZD EGP ERN ETB EUR FJD FKP GBP GEL GHS GIP GMD GTQ GYD
HKD HNL HTG HUF IDR ILS INR IRR JMD KES KGS KHR KPW KYD KZT LAK LBP LKR LRD LSL MAD MDL MGA MKD MMK
MNT MOP MRU MUR MVR MWK MXN MYR MZN NAD NGN NIO NOK NPR NZD PAB PEN PGK PHP PKR PLN QAR RON RSD RUB
SAR SBD SCR SDG SEK SGD SHP SLE SOS SRD SSP STN SVC SYP SZL THB TJS TMT TOP TRY TTD TWD TZS UAH USD
UYU UZS VES WST XCD YER ZAR ZMW ZWL`;
const ZERO_DECIMALS = 'BIF CLP DJF GNF ISK JPY KMF KRW PYG RWF UGX UYI VND VUV XAF XOF XPF';
const THREE_DECIMALS = 'BHD IQD JOD KWD LYD OMR TND';

const EXPONENTS = new Map<string, number>();
for (const [list, exponent] of [
  [TWO_DECIMALS, 2],
  [ZERO_DECIMALS, 0],
  [THREE_DECIMALS, 3],
] as const) {
  for (const code of list.split(/\s+/)) if (code) EXPONENTS.set(code, exponent);
}

/** Every known ISO 4217 code, upper case, in alphabetical order (the OpenAPI document lists them). */
export const CURRENCY_CODES: readonly string[] = [...EXPONENTS.keys()].sort();

/** True for a known ISO 4217 three-letter code (upper case). */
export function isCurrency(code: string): boolean {
  return EXPONENTS.has(code);
}

/** Digits after the decimal point for the currency (2 when unknown, which validation prevents). */
export function currencyExponent(code: string): number {
  return EXPONENTS.get(code) ?? 2;
}
