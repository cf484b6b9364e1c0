// formEncode writes an S2S webhook body without building a URLSearchParams: it must write exactly
// the bytes URLSearchParams does (the WHATWG application/x-www-form-urlencoded serializer), since
// merchants' handlers and signatures take them as they are.
import fc from 'fast-check';
import { expect, it } from 'vitest';
import { formEncode } from '../../src/views/webhook-body.js';

const reference = (fields: Record<string, string>) => new URLSearchParams(fields).toString();

it.each([
  [{ a: 'b c', 'd e': "f!'()~*-._g" }],
  [{ amount: '10.50', reference: 'order #1&2=3+4%5', email: 'jane+test@example.com' }],
  [{ name: 'Zoë Ünal 日本 😀', empty: '', slash: '/?:@[]' }],
  [{ lone: 'a\ud800b', 'key\udfff': 'v' }],
  [{}],
])('writes %j as URLSearchParams does', (fields) => {
  expect(formEncode(fields)).toBe(reference(fields));
});

it('writes any record of strings as URLSearchParams does', () => {
  fc.assert(
    fc.property(fc.dictionary(fc.string({ unit: 'binary' }), fc.string({ unit: 'binary' })), (fields) => {
      expect(formEncode(fields)).toBe(reference(fields));
    }),
    { numRuns: 200 },
  );
});
