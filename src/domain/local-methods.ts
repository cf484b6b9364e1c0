// The rules of the hosted page's non-card methods: iDEAL (a list of Dutch test banks and the
// test-mode outcomes a customer can pick, as Mollie's test mode offers) and SEPA Direct Debit
// (IBAN checking and the documented test IBANs that script the outcome).

/** Dutch iDEAL banks offered on the page (BIC and name). */
export const IDEAL_BANKS: ReadonlyArray<{ bic: string; name: string }> = [
  { bic: 'ABNANL2A', name: 'ABN AMRO' },
  { bic: 'ASNBNL21', name: 'ASN Bank' },
  { bic: 'BUNQNL2A', name: 'bunq' },
  { bic: 'INGBNL2A', name: 'ING' },
  { bic: 'KNABNL2H', name: 'Knab' },
  { bic: 'RABONL2U', name: 'Rabobank' },
  { bic: 'RBRBNL21', name: 'RegioBank' },
  { bic: 'REVOLT21', name: 'Revolut' },
  { bic: 'SNSBNL2A', name: 'SNS' },
  { bic: 'TRIONL2U', name: 'Triodos Bank' },
];

/** The bank with this BIC, or undefined. */
export function idealBank(bic: string): { bic: string; name: string } | undefined {
  return IDEAL_BANKS.find((bank) => bank.bic === bic);
}

/** What the customer can pick on the iDEAL test bank page. */
export const IDEAL_OUTCOMES = ['paid', 'failed', 'canceled', 'expired', 'open'] as const;
/** One iDEAL test outcome. */
export type IdealOutcome = (typeof IDEAL_OUTCOMES)[number];

/** Labels and explanations of the iDEAL outcomes, for the picker page and the docs. */
export const IDEAL_OUTCOME_TEXT: Record<IdealOutcome, { label: string; effect: string }> = {
  paid: { label: 'Paid', effect: 'the payment is authorized and captured; the session completes' },
  failed: { label: 'Failed', effect: 'the payment is declined; the customer may try again' },
  canceled: { label: 'Canceled', effect: 'the payment is canceled; the customer may try again' },
  expired: { label: 'Expired', effect: 'the payment expires; the customer may try again' },
  open: { label: 'Open', effect: 'the payment stays open at the bank; the session stays open until it expires' },
};

/** The customer's IBAN as typed, without spaces and in capitals. */
export function normaliseIban(text: string): string {
  return text.replace(/\s+/g, '').toUpperCase();
}

/** Why an (already normalised) IBAN is not valid, in words for the customer; undefined when valid. */
export function ibanProblem(iban: string): string | undefined {
  if (iban === '') return 'Enter your IBAN.';
  if (!/^[A-Z]{2}\d{2}[A-Z0-9]{11,30}$/.test(iban)) {
    return 'An IBAN starts with a two-letter country code and two check digits, followed by 11 to 30 letters and digits (e.g. AT61 1904 3002 3457 3201).';
  }
  if (mod97(iban) !== 1) return 'This IBAN is not valid: its check digits do not match. Check for a mistyped character.';
  return undefined;
}

/** ISO 13616 check: the rearranged IBAN, letters as 10..35, modulo 97 (1 when valid). */
function mod97(iban: string): number {
  const rearranged = iban.slice(4) + iban.slice(0, 4);
  let remainder = 0;
  for (const ch of rearranged) {
    const value = ch >= 'A' ? String(ch.charCodeAt(0) - 55) : ch;
    for (const digit of value) remainder = (remainder * 10 + Number(digit)) % 97;
  }
  return remainder;
}

/** The SEPA return reason codes the test IBANs use, with their words (ISO 20022 ExternalReturnReason1Code). */
export const SEPA_RETURN_REASONS = {
  AM04: 'Insufficient funds',
  MD06: 'Refund requested by the debtor',
} as const;
/** One SEPA return reason code. */
export type SepaReturnCode = keyof typeof SEPA_RETURN_REASONS;

/** What a SEPA Direct Debit does after it is submitted (processing first, then this). */
export interface SepaOutcome {
  result: 'succeed' | 'fail';
  /** Sandbox time between submission and the result. */
  afterMs: number;
  /** A debit collected, then returned by the debtor's bank: the reason and the sandbox time after collection. */
  returns?: { code: SepaReturnCode; afterMs: number };
}

const DAY_MS = 86_400_000;

/** Settling "immediately after processing" still takes a moment, as a real debit would. */
const SETTLE_MS = 5_000;

/** The test IBAN that settles late, and its wait when --sepa-delay is not given. */
const SLOW_IBAN = 'AT321904300235473204';
const SLOW_SETTLE_MS = 3 * 60_000;

/** The documented test IBANs (the Stripe SEPA test numbers); any other valid IBAN succeeds. */
export const SEPA_TEST_IBANS: ReadonlyArray<{ iban: string; description: string; outcome: SepaOutcome }> = [
  {
    iban: 'AT611904300234573201',
    description: 'succeeds shortly after processing (5 s of sandbox time)',
    outcome: { result: 'succeed', afterMs: SETTLE_MS },
  },
  {
    iban: 'AT861904300235473202',
    description: 'fails shortly after processing (5 s of sandbox time)',
    outcome: { result: 'fail', afterMs: SETTLE_MS },
  },
  {
    iban: SLOW_IBAN,
    description: 'succeeds after 3 minutes of sandbox time (`sandbox clock advance 3m` makes it happen now)',
    outcome: { result: 'succeed', afterMs: SLOW_SETTLE_MS },
  },
  {
    iban: 'NL91ABNA0417164300',
    description: 'succeeds, then is returned with reason AM04 (insufficient funds) 2 days of sandbox time later (payment.returned)',
    outcome: { result: 'succeed', afterMs: SETTLE_MS, returns: { code: 'AM04', afterMs: 2 * DAY_MS } },
  },
  {
    iban: 'DE89370400440532013000',
    description:
      'succeeds, then is returned with reason MD06 (refund requested by the debtor) 10 days of sandbox time later (payment.returned)',
    outcome: { result: 'succeed', afterMs: SETTLE_MS, returns: { code: 'MD06', afterMs: 10 * DAY_MS } },
  },
];

/** The scripted outcome of a (valid, normalised) IBAN; the slow test IBAN waits `slowMs` (--sepa-delay). */
export function sepaOutcome(iban: string, slowMs = SLOW_SETTLE_MS): SepaOutcome {
  if (iban === SLOW_IBAN) return { result: 'succeed', afterMs: slowMs };
  return SEPA_TEST_IBANS.find((entry) => entry.iban === iban)?.outcome ?? { result: 'succeed', afterMs: SETTLE_MS };
}

/** An IBAN as people read it: groups of four. */
export function formatIban(iban: string): string {
  return iban.replace(/(.{4})(?=.)/g, '$1 ');
}
