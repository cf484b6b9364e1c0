import { describe, expect, it } from 'vitest';
import { cardBrand, expiryInPast, luhnValid, maskCardNumber, normaliseCardNumber } from '../../src/domain/card.js';
import { TEST_CARDS } from '../../src/domain/outcomes.js';

describe('luhnValid', () => {
  it.each(TEST_CARDS.map((card) => card.number))('accepts the test card %s', (number) => {
    expect(luhnValid(number)).toBe(true);
  });

  it.each([
    ['4242424242424241', 'last digit off by one'],
    ['4242424242424243', 'last digit off by one the other way'],
    ['4000000000003221', 'a changed check digit'],
    ['1234567812345678', 'an arbitrary number'],
  ])('rejects %s (%s)', (number) => {
    expect(luhnValid(number)).toBe(false);
  });

  it.each([[''], ['4242 4242 4242 4242'], ['4242-4242'], ['abcd'], ['42424242424242a2']])('rejects non-digit text %j', (text) => {
    expect(luhnValid(text)).toBe(false);
  });

  it('accepts a number whose doubled digits exceed 9 (the 18 -> 9 rule)', () => {
    expect(luhnValid('59')).toBe(true);
    expect(luhnValid('58')).toBe(false);
  });
});

describe('cardBrand', () => {
  it.each([
    ['4242424242424242', 'VISA'],
    ['4000056655665556', 'VISA'],
    ['5555555555554444', 'MASTERCARD'],
    ['5105105105105100', 'MASTERCARD'],
    ['2223003122003222', 'MASTERCARD'],
    ['2720990000000007', 'MASTERCARD'],
    ['378282246310005', 'AMEX'],
    ['371449635398431', 'AMEX'],
    ['6011111111111117', 'DISCOVER'],
    ['6445644564456445', 'DISCOVER'],
    ['3056930009020004', 'DINERS'],
    ['36227206271667', 'DINERS'],
    ['3566002020360505', 'JCB'],
    ['6200000000000005', 'UNIONPAY'],
    ['6759649826438453', 'MAESTRO'],
    ['5018000000000009', 'MAESTRO'],
    ['6521000000000000', 'RUPAY'],
    ['6070000000000000', 'RUPAY'],
    ['8100000000000000', 'RUPAY'],
    ['9999999999999995', 'CARD'],
    ['1111111111111117', 'CARD'],
  ])('%s is %s', (number, brand) => {
    expect(cardBrand(number)).toBe(brand);
  });
});

describe('maskCardNumber', () => {
  it.each([
    ['4242424242424242', '424242XXXXXX4242'],
    ['378282246310005', '378282XXXXX0005'],
    ['4222222222222', '422222XXX2222'],
    ['6200000000000000005', '620000XXXXXXXXX0005'],
  ])('%s -> %s (first 6, X in the middle, last 4)', (number, masked) => {
    expect(maskCardNumber(number)).toBe(masked);
    expect(masked).toHaveLength(number.length);
  });

  it('keeps only the last 4 digits of a short number', () => {
    expect(maskCardNumber('1234567890')).toBe('XXXXXX7890');
  });
});

describe('normaliseCardNumber', () => {
  it.each([
    ['4242 4242 4242 4242', '4242424242424242'],
    ['4242-4242-4242-4242', '4242424242424242'],
    [' 4242424242424242 ', '4242424242424242'],
  ])('%j -> %s', (typed, digits) => {
    expect(normaliseCardNumber(typed)).toBe(digits);
  });
});

describe('expiryInPast', () => {
  const now = Date.UTC(2026, 0, 15, 12, 0, 0); // January 2026

  it.each([
    [12, 25, true, 'last year'],
    [1, 26, false, 'the current month is still valid'],
    [2, 26, false, 'next month'],
    [12, 30, false, 'years ahead'],
  ])('month %i year %i -> %s (%s)', (month, year, past) => {
    expect(expiryInPast(month, year, now)).toBe(past);
  });

  it('treats the month before the current one as past', () => {
    expect(expiryInPast(2, 26, Date.UTC(2026, 2, 1))).toBe(true);
  });
});
