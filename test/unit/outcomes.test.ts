import { describe, expect, it } from 'vitest';
import {
  DEFAULT_SCRIPT,
  declineMessage,
  judgeOtp,
  OTP_FAIL,
  OTP_PASS,
  OTP_TRIES,
  scriptForCard,
  outcomeForVpa,
  TEST_CARDS,
} from '../../src/domain/outcomes.js';

// The docs/decisions.md test-card table, row by row: challenge?, issuer answer, refund/chargeback flags.
const EXPECTED: Array<[string, boolean, string, boolean, boolean]> = [
  ['4242424242424242', false, 'approve', false, false],
  ['4000000000003220', true, 'approve', false, false],
  ['4000008400001629', true, 'decline:card_declined', false, false],
  ['4000000000000002', false, 'decline:card_declined', false, false],
  ['4000000000009995', false, 'decline:insufficient_funds', false, false],
  ['4000000000009987', false, 'decline:lost_card', false, false],
  ['4000000000009979', false, 'decline:stolen_card', false, false],
  ['4000000000000069', false, 'decline:expired_card', false, false],
  ['4000000000000127', false, 'decline:incorrect_cvc', false, false],
  ['4000000000000119', false, 'decline:processing_error', false, false],
  ['4000000000005126', false, 'approve', true, false],
  ['4000000000000259', false, 'approve', false, true],
  ['4999990000000015', false, 'hang', false, false],
  // Approve at once; saved as a token they age with the sandbox clock (test/routes/card-aging.test.ts).
  ['4000000000000077', false, 'approve', false, false],
  ['4000000000000176', false, 'approve', false, false],
];

function answer(number: string): string {
  const a = scriptForCard(number).authorisation;
  return a.result === 'decline' ? `decline:${a.code}` : a.result;
}

describe('scriptForCard', () => {
  it.each(EXPECTED)('%s: challenge %s, issuer %s, refund fails %s, chargeback %s', (number, challenge, issuer, refundFails, chargeback) => {
    const outcome = scriptForCard(number);
    expect(outcome.challenge).toBe(challenge);
    expect(answer(number)).toBe(issuer);
    expect(outcome.refundFails).toBe(refundFails);
    expect(outcome.chargeback).toBe(chargeback);
  });

  it('covers every row of TEST_CARDS and nothing else', () => {
    expect(TEST_CARDS.map((card) => card.number).sort()).toEqual(EXPECTED.map((row) => row[0]).sort());
  });

  it('gives every test card a distinct tok_ token name', () => {
    const tokens = TEST_CARDS.map((card) => card.token);
    expect(new Set(tokens).size).toBe(tokens.length);
    for (const token of tokens) expect(token).toMatch(/^tok_[a-z_]+$/);
  });

  it.each([['5555555555554444'], ['378282246310005'], ['4000000000000135']])(
    'an unlisted Luhn-valid card %s gets a challenge that approves',
    (number) => {
      expect(scriptForCard(number)).toEqual(DEFAULT_SCRIPT);
      expect(DEFAULT_SCRIPT.challenge).toBe(true);
      expect(DEFAULT_SCRIPT.authorisation).toEqual({ result: 'approve' });
    },
  );
});

describe('declineMessage', () => {
  it.each([
    ['card_declined', 'card_declined: the issuer declined the card'],
    ['insufficient_funds', 'insufficient_funds: the card has insufficient funds'],
    ['authentication_failed', 'authentication_failed: 3-D Secure authentication failed'],
  ] as const)('%s starts with the code so merchants can match on it', (code, message) => {
    expect(declineMessage(code)).toBe(message);
  });
});

describe('judgeOtp', () => {
  it.each([
    [OTP_PASS, 'pass'],
    ['123456', 'pass'],
    [OTP_FAIL, 'fail'],
    ['000000', 'fail'],
    ['111111', 'retry'],
    ['12345', 'retry'],
    ['1234567', 'retry'],
    ['', 'retry'],
  ])('%j -> %s', (otp, verdict) => {
    expect(judgeOtp(otp)).toBe(verdict);
  });

  it('allows 3 tries', () => {
    expect(OTP_TRIES).toBe(3);
  });
});

describe('outcomeForVpa', () => {
  it.each([
    ['success@upi', 'approve'],
    ['SUCCESS@okbank', 'approve'],
    ['failure@upi', 'decline'],
    ['Failure@ybl', 'decline'],
    ['jane@upi', 'wait'],
    ['successful@upi', 'wait'],
    ['upi@success', 'wait'],
  ])('%s -> %s', (vpa, verdict) => {
    expect(outcomeForVpa(vpa)).toBe(verdict);
  });
});
