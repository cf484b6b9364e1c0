// Scripted outcomes: which test card, OTP or VPA leads where (docs/decisions.md "Test inputs").
// The table is the single source for the docs and for the predefined test tokens.

/** Issuer decline reasons the sandbox can produce, in the `response` of a Test Declined. */
export type DeclineCode =
  | 'card_declined'
  | 'insufficient_funds'
  | 'lost_card'
  | 'stolen_card'
  | 'expired_card'
  | 'incorrect_cvc'
  | 'processing_error'
  | 'authentication_failed'
  | 'declined_by_customer';

/** The `response` text of a Test Declined: the code first, so merchants can match on it. */
export const DECLINE_MESSAGES: Record<DeclineCode, string> = {
  card_declined: 'the issuer declined the card',
  insufficient_funds: 'the card has insufficient funds',
  lost_card: 'the card is reported lost',
  stolen_card: 'the card is reported stolen',
  expired_card: 'the card has expired',
  incorrect_cvc: 'the CVV is incorrect',
  processing_error: 'an error occurred while processing the card',
  authentication_failed: '3-D Secure authentication failed',
  declined_by_customer: 'the customer declined the payment request',
};

/** "card_declined: the issuer declined the card" */
export function declineMessage(code: DeclineCode): string {
  return `${code}: ${DECLINE_MESSAGES[code]}`;
}

/** What happens after a challenge passes (or immediately, when there is no challenge). */
export type Authorisation = { result: 'approve' } | { result: 'decline'; code: DeclineCode } | { result: 'hang' };

/**
 * The scripted behaviour of one payment attempt: the plan a test card, a token or a forced
 * X-Sandbox-Outcome / scenario word gives it (`payment.script`). Not the result a customer picks on
 * a page or a scenario word names: those are "outcomes".
 */
export interface ScriptedOutcome {
  /** Whether the customer must pass a 3-D Secure / bank challenge first. */
  challenge: boolean;
  /** What the (simulated) issuer answers once authentication is done or skipped. */
  authorisation: Authorisation;
  /** Refunds of this payment fail later (refund.failed). */
  refundFails: boolean;
  /** A chargeback opens shortly after approval. */
  chargeback: boolean;
}

/** One row of the test-card table. */
export interface TestCard {
  number: string;
  /** Name of the predefined token (tok_<name>) for the bearer API. */
  token: string;
  description: string;
  /** What a payment with this card does. */
  script: ScriptedOutcome;
}

const approve: Authorisation = { result: 'approve' };
const decline = (code: DeclineCode): Authorisation => ({ result: 'decline', code });
const base = { refundFails: false, chargeback: false };

/** The test cards of docs/decisions.md. Any other Luhn-valid number gets DEFAULT_SCRIPT. */
export const TEST_CARDS: readonly TestCard[] = [
  {
    number: '4242424242424242',
    token: 'tok_visa',
    description: 'frictionless: approved at once, no authurl',
    script: { ...base, challenge: false, authorisation: approve },
  },
  {
    number: '4000000000003220',
    token: 'tok_threeds_required',
    description: '3-D Secure challenge; the OTP decides',
    script: { ...base, challenge: true, authorisation: approve },
  },
  {
    number: '4000008400001629',
    token: 'tok_threeds_then_declined',
    description: 'challenge passes, then declined card_declined',
    script: { ...base, challenge: true, authorisation: decline('card_declined') },
  },
  {
    number: '4000000000000002',
    token: 'tok_card_declined',
    description: 'declined card_declined, no challenge',
    script: { ...base, challenge: false, authorisation: decline('card_declined') },
  },
  {
    number: '4000000000009995',
    token: 'tok_insufficient_funds',
    description: 'declined insufficient_funds',
    script: { ...base, challenge: false, authorisation: decline('insufficient_funds') },
  },
  {
    number: '4000000000009987',
    token: 'tok_lost_card',
    description: 'declined lost_card',
    script: { ...base, challenge: false, authorisation: decline('lost_card') },
  },
  {
    number: '4000000000009979',
    token: 'tok_stolen_card',
    description: 'declined stolen_card',
    script: { ...base, challenge: false, authorisation: decline('stolen_card') },
  },
  {
    number: '4000000000000069',
    token: 'tok_expired_card',
    description: 'declined expired_card',
    script: { ...base, challenge: false, authorisation: decline('expired_card') },
  },
  {
    number: '4000000000000127',
    token: 'tok_incorrect_cvc',
    description: 'declined incorrect_cvc',
    script: { ...base, challenge: false, authorisation: decline('incorrect_cvc') },
  },
  {
    number: '4000000000000119',
    token: 'tok_processing_error',
    description: 'declined processing_error',
    script: { ...base, challenge: false, authorisation: decline('processing_error') },
  },
  {
    number: '4000000000005126',
    token: 'tok_refund_fail',
    description: 'approved; refunds of it fail later (refund.failed)',
    script: { ...base, challenge: false, authorisation: approve, refundFails: true },
  },
  {
    number: '4000000000000259',
    token: 'tok_chargeback',
    description: 'approved; a chargeback opens shortly after',
    script: { ...base, challenge: false, authorisation: approve, chargeback: true },
  },
  {
    number: '4999990000000015',
    token: 'tok_no_answer',
    description: 'stays Pending: the gateway never answers, no webhook',
    script: { ...base, challenge: false, authorisation: { result: 'hang' } },
  },
];

/** Any Luhn-valid card not in the table: a challenge, approved when it passes. */
export const DEFAULT_SCRIPT: ScriptedOutcome = { ...base, challenge: true, authorisation: approve };

const BY_NUMBER = new Map(TEST_CARDS.map((card) => [card.number, card]));

/** The script of a card number (already normalised to digits). */
export function scriptForCard(number: string): ScriptedOutcome {
  return BY_NUMBER.get(number)?.script ?? DEFAULT_SCRIPT;
}

/** What the customer typed on the OTP page means. */
export type OtpVerdict = 'pass' | 'fail' | 'retry';

/** The OTPs of docs/decisions.md: 123456 passes, 000000 fails, anything else costs a try. */
export const OTP_PASS = '123456';
export const OTP_FAIL = '000000';
export const OTP_TRIES = 3;

/** Judges one OTP entry. */
export function judgeOtp(otp: string): OtpVerdict {
  if (otp === OTP_PASS) return 'pass';
  if (otp === OTP_FAIL) return 'fail';
  return 'retry';
}

/** The UPI VPA handles of docs/decisions.md: success@... approves, failure@... declines. */
export const VPA_APPROVE = 'success';
export const VPA_DECLINE = 'failure';

/** UPI collect: success@... approves, failure@... declines, anything else waits for the customer. */
export function outcomeForVpa(vpa: string): 'approve' | 'decline' | 'wait' {
  const handle = vpa.split('@')[0].toLowerCase();
  if (handle === VPA_APPROVE) return 'approve';
  if (handle === VPA_DECLINE) return 'decline';
  return 'wait';
}
