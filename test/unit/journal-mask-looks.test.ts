// masked()'s quick looks (a text without a pair, JSON, an underscore or 13 digits in a run is kept
// unread; a value without 13 digits or a key's marker is not scanned; a text the look before
// parsing does not flag is not parsed) only save time: with them or without, every text is masked
// the same. Texts are built from what a journal meets: JSON and forms with secret and card fields
// under names spelt many ways, card numbers with separators, times and transIDs, keys and secrets.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { masked, maskedWithoutLooks } from '../../src/domain/journal-mask.js';

const CARDS = ['4222222222222', '4242424242424242', '4000000000009995', '5555555555554444', '4000008400001629', '378282246310005'];
const names = fc.constantFrom(
  'amount',
  'card',
  'number',
  'cvc',
  'c_v_v',
  'CVV2',
  'api-key',
  'apiKey',
  'webhook_secret',
  'note',
  'description',
  'cid',
  'password',
  'card[cvc]',
  'card%5Bnumber%5D',
  '__proto__',
  'x',
);
const separated = (digits: string, sep: string) => digits.replace(/(\d{4})(?=\d)/g, `$1${sep}`);
const scalars = fc.oneof(
  fc.constantFrom(...CARDS),
  fc.tuple(fc.constantFrom(...CARDS), fc.constantFrom(' ', '-', '+', '%20', '.', '%2E')).map(([card, sep]) => separated(card, sep)),
  fc.constantFrom('1764312345678', '176431234567800', '4242424242424241', '123', '8264', '10.50', 'EUR', 'order 1234'),
  fc.constantFrom('sk_test_sandbox', 'rk_live_zzz', 'SK_TEST_upper', 'whsec_abc+/=', 'pk_test_1001', 'Bearer sk_live_x'),
  fc.string({ maxLength: 12 }),
  fc.stringMatching(/^[0-9 -]{0,24}$/),
);
// A card number split across an array's items, as strings or as JSON numbers (a part's leading zeros then go).
const splitCard = fc
  .tuple(fc.constantFrom(...CARDS), fc.integer({ min: 2, max: 6 }), fc.boolean(), fc.constantFrom([], [''], [' '], ['-']))
  .map(([card, size, asNumbers, first]) => [
    ...first,
    ...(card.match(new RegExp(`\\d{1,${size}}`, 'g')) ?? []).map((part) => (asNumbers ? Number(part) : part)),
  ]);
const json: fc.Arbitrary<unknown> = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small' },
    scalars,
    splitCard,
    fc.integer(),
    fc.constantFrom(4242424242424242, 5.555555555554444e15, 1764312345678, null, true),
    fc.array(tie('value'), { maxLength: 3 }),
    tie('object'),
  ),
  object: fc.array(fc.tuple(names, tie('value')), { maxLength: 4 }).map((pairs) => {
    const out: Record<string, unknown> = {};
    for (const [name, value] of pairs) Object.defineProperty(out, name, { value, enumerable: true, writable: true, configurable: true });
    return out;
  }),
})).value;
const form = fc
  .tuple(fc.array(fc.tuple(names, scalars), { minLength: 1, maxLength: 5 }), fc.constantFrom('&', ';'))
  .map(([pairs, sep]) => pairs.map(([name, value]) => `${name}=${value}`).join(sep));
// Bare numbers a double cannot hold exactly (16 or more digits, exponents): masked() must read them as the look-less path does.
const bareNumbers = fc
  .oneof(
    fc.stringMatching(/^[1-9]\d{12,20}$/),
    fc.stringMatching(/^[1-9](\.\d{1,4})?[eE][+-]?1[0-9]$/),
    fc.constantFrom('6011000990139424009', '9007199254740993'),
  )
  .map((number) => `{"n":${number},"m":[1,${number}]}`);
// The same split across a form field given more than once (ccno=4242&ccno=4242&...), or as a form array.
const splitForm = fc
  .tuple(splitCard, fc.constantFrom('ccno', 'ccno[]', 'ccno%5B%5D', 'n'), fc.constantFrom('', '&x=1'))
  .map(([parts, name, tail]) => parts.map((part) => `${name}=${part}`).join('&') + tail);
const texts = fc.oneof(
  splitForm,
  bareNumbers,
  json.map((value) => JSON.stringify(value) ?? 'null'),
  json.map((value) => (JSON.stringify(value, null, 1) ?? 'null').replace(/"c/g, '"\\u0063')),
  // Whole numbers in arrays written with a fraction (4242.0 is 4242): their text holds more digits than their values.
  json.map((value) => (JSON.stringify(value) ?? 'null').replace(/([[,])(\d+)(?=[,\]])/g, '$1$2.00')),
  form,
  fc.array(scalars, { maxLength: 4 }).map((parts) => parts.join(' ')),
  fc.string({ maxLength: 40 }),
);

describe('masked() with its quick looks', () => {
  it('masks every text as it would without them', () => {
    fc.assert(
      fc.property(texts, (text) => {
        expect(masked(text)).toBe(maskedWithoutLooks(text));
      }),
      { numRuns: 3000 },
    );
  });

  it('would see a look that skips what must be masked (the property can fail)', () => {
    // A card number in a form's value, or a CVV by name: the looks must not skip either.
    for (const text of [
      'number=4242424242424242',
      '{"cvc":"123"}',
      'note=sk_test_x',
      'n=4242+4242+4242+4242',
      '{"n":["4242","4242","4242","4242"]}',
    ])
      expect(maskedWithoutLooks(text)).not.toBe(text);
  });
});
