// The two helpers of src/errors.ts every layer uses on what it catches or reads back.
import { describe, expect, it } from 'vitest';
import { errorMessage, present } from '../../src/errors.js';

describe('errorMessage', () => {
  it("reads an Error's message, and says what any other thrown value is instead of undefined", () => {
    expect(errorMessage(new TypeError('bad type'))).toBe('bad type');
    expect(errorMessage('a thrown string')).toBe('a thrown string');
    expect(errorMessage(42)).toBe('42');
    expect(errorMessage(undefined)).toBe('undefined');
  });
});

describe('present', () => {
  it('returns a value that is there, falsy ones included', () => {
    expect(present(0, 'a count')).toBe(0);
    expect(present('', 'a text')).toBe('');
  });

  it('throws, naming what is missing, for undefined or null', () => {
    expect(() => present(undefined, 'payment pay_1')).toThrow('payment pay_1 is missing');
    expect(() => present(null, 'the answer')).toThrow('the answer is missing');
  });
});
