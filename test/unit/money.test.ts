import { describe, expect, it } from 'vitest';
import { formatDecimalAmount, formatMoney, MAX_DECIMAL_AMOUNT, parseDecimalAmount } from '../../src/domain/money.js';
import { currencyExponent, isCurrency } from '../../src/domain/currencies.js';

describe('parseDecimalAmount (EUR, 2 decimals)', () => {
  it.each([
    ['10', 1000],
    ['10.5', 1050],
    ['10.50', 1050],
    ['0.01', 1],
    ['0.1', 10],
    [' 7.25 ', 725],
    ['00012.00', 1200],
    [MAX_DECIMAL_AMOUNT, 9999999999],
    [10.5, 1050],
    [1e3, 100000],
    [99999999.99, 9999999999],
    [0.01, 1],
  ] as Array<[unknown, number]>)('%j -> %i minor units', (value, minor) => {
    expect(parseDecimalAmount(value, 'EUR')).toBe(minor);
  });

  it.each([
    ['0', 'zero'],
    ['0.00', 'zero with decimals'],
    [0, 'zero as a number'],
    ['-1', 'negative'],
    [-1, 'negative number'],
    ['1e3', 'exponent notation in text'],
    ['10.505', 'three decimals'],
    [10.505, 'three decimals as a number'],
    ['100000000', 'above decimal(10,2)'],
    [100000000, 'above decimal(10,2) as a number'],
    ['abc', 'not a number'],
    ['', 'empty'],
    ['10.', 'a trailing point'],
    ['.5', 'no whole part'],
    ['1,000.00', 'a thousands separator'],
    ['10,50', 'a decimal comma'],
    [0.1 + 0.2, 'a float artefact (0.30000000000000004)'],
    [Number.NaN, 'NaN'],
    [Number.POSITIVE_INFINITY, 'Infinity'],
    [null, 'null'],
    [undefined, 'undefined'],
    [true, 'a boolean'],
  ] as Array<[unknown, string]>)('%j is refused (%s)', (value) => {
    expect(parseDecimalAmount(value, 'EUR')).toBeUndefined();
  });

  it('defaults to EUR when no currency is given', () => {
    expect(parseDecimalAmount('1.23')).toBe(123);
  });
});

describe('parseDecimalAmount for zero- and three-decimal currencies', () => {
  it.each([
    ['1000', 'JPY', 1000],
    ['1000.00', 'JPY', 1000],
    ['1', 'KRW', 1],
    ['10.50', 'KWD', 10500],
    ['10.5', 'KWD', 10500],
    ['0.01', 'BHD', 10],
    ['10.50', 'USD', 1050],
  ])('%s %s -> %i minor units', (text, currency, minor) => {
    expect(parseDecimalAmount(text, currency)).toBe(minor);
  });

  it.each([
    ['10.50', 'JPY'],
    ['10.01', 'JPY'],
    ['0.50', 'KRW'],
  ])('%s %s is refused: more decimals than the currency has', (text, currency) => {
    expect(parseDecimalAmount(text, currency)).toBeUndefined();
  });
});

describe('formatDecimalAmount', () => {
  it.each([
    [1050, 'EUR', '10.50'],
    [1000, 'EUR', '10.00'],
    [5, 'EUR', '0.05'],
    [1, 'USD', '0.01'],
    [9999999999, 'EUR', '99999999.99'],
    [1000, 'JPY', '1000.00'],
    [10500, 'KWD', '10.50'],
    [10, 'BHD', '0.01'],
  ])('%i %s -> %s', (minor, currency, text) => {
    expect(formatDecimalAmount(minor, currency)).toBe(text);
  });

  it.each([
    ['10.50', 'EUR'],
    ['99999999.99', 'EUR'],
    ['1000', 'JPY'],
    ['10.50', 'KWD'],
    ['0.01', 'BHD'],
  ])('round-trips %s %s through minor units', (text, currency) => {
    const minor = parseDecimalAmount(text, currency)!;
    expect(parseDecimalAmount(formatDecimalAmount(minor, currency), currency)).toBe(minor);
  });
});

describe('formatMoney', () => {
  it.each([
    [1050, 'EUR', '€10.50'],
    [123456789, 'USD', 'US$1,234,567.89'],
    [1000, 'JPY', 'JP¥1,000'],
    [10500, 'KWD', 'KWD\u00a010.500'],
  ])('%i %s -> %j', (minor, currency, text) => {
    expect(formatMoney(minor, currency)).toBe(text);
  });
});

describe('currencies', () => {
  it.each([
    ['EUR', 2],
    ['USD', 2],
    ['JPY', 0],
    ['KRW', 0],
    ['KWD', 3],
    ['BHD', 3],
  ])('%s is known with %i decimals', (code, exponent) => {
    expect(isCurrency(code)).toBe(true);
    expect(currencyExponent(code)).toBe(exponent);
  });

  it.each([['eur'], ['XXX'], ['EURO'], ['']])('%j is not a currency', (code) => {
    expect(isCurrency(code)).toBe(false);
  });
});
