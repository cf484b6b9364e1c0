// The request journal's one masking function: every form a card, a CVV, a key or a secret can take
// in a body, a query or a header, and the texts it must leave as they are.
import { describe, expect, it } from 'vitest';
import { masked, maskedHeaders, REDACTED } from '../../src/domain/journal-mask.js';

const r = encodeURIComponent(REDACTED);

describe('masked', () => {
  it.each([
    [
      'a /v1/ card',
      '{"amount":1050,"card":{"number":"4242424242424242","exp_month":12,"exp_year":2030,"cvc":"123"}}',
      '{"amount":1050,"card":{"number":"424242******4242","exp_month":12,"exp_year":2030,"cvc":"[redacted]"}}',
    ],
    ['a card as one string', '{"card":"4000000000009995|12|30|7391"}', '{"card":"[redacted]"}'],
    ['a card as an array', '{"card":["5555555555554444","8264"]}', '{"card":"[redacted]"}'],
    [
      'a number nested deeper, a CVV as an object',
      '{"card":{"number":{"pan":"4000008400001629"},"cvc":{"value":"6157"}}}',
      '{"card":{"number":{"pan":"400000******1629"},"cvc":"[redacted]"}}',
    ],
    [
      'numbers as JSON numbers',
      '{"card":{"number":5555555555554444,"cvc":8264}}',
      '{"card":{"number":"555555******4444","cvc":"[redacted]"}}',
    ],
    ['a field name spelt with an escape', '{"c\\u0076c":"123"}', '{"cvc":"[redacted]"}'],
    ['a number in free text', '{"description":"card 4242 4242 4242 4242 please"}', '{"description":"card 424242******4242 please"}'],
    ['a number written with dots', '{"description":"card 4242.4242.4242.4242."}', '{"description":"card 424242******4242."}'],
    ['a number with dots and dashes mixed', 'ccno=5555.5555-5555.4444&x=1', `ccno=${encodeURIComponent('555555******4444')}&x=1`],
    ['a number followed by a decimal part', '{"note":"4242424242424242.50 paid"}', '{"note":"424242******4242.50 paid"}'],
    ['a time with milliseconds after a dot is not a card', '{"note":"at 1764312345.678"}', '{"note":"at 1764312345.678"}'],
    [
      'keys and secrets by name and by prefix',
      '{"api_key":"k1","webhook_secret":"s","private_key":"pv_test_1001","note":"Bearer sk_live_zzz and whsec_abc"}',
      '{"api_key":"[redacted]","webhook_secret":"[redacted]","private_key":"[redacted]","note":"Bearer sk_live_[redacted] and whsec_[redacted]"}',
    ],
    [
      'an S2S form',
      'terNO=1001&ccno=4242+4242+4242+4242&ccvv=123&card%5Bcvc%5D=999&card=4242|1|2|3',
      `terNO=1001&ccno=${encodeURIComponent('424242******4242')}&ccvv=${r}&card%5Bcvc%5D=${r}&card=${r}`,
    ],
    ['a query with a key', 'api_key=sk_test_sandbox&limit=3', `api_key=${r}&limit=3`],
    // Texts the quick look before parsing (mayNeedMasking) must flag: names spelt with separators,
    // a form's number with + or %20 between its groups and no secret name beside it, a restricted key.
    ['a secret name with separators in it', '{"c_v_v":"123"}', '{"c_v_v":"[redacted]"}'],
    ['a form number with + between its groups', 'number=4242+4242+4242+4242&x=1', `number=${encodeURIComponent('424242******4242')}&x=1`],
    ['a form number with %20 between its groups', 'number=4000%200000%200000%209995', `number=${encodeURIComponent('400000******9995')}`],
    ['a restricted key', '{"note":"rk_live_zzz"}', '{"note":"rk_live_[redacted]"}'],
    ['a card number as a key', '{"4000008400001629":true}', '{"400000******1629":true}'],
    ['a number written with an exponent', '{"n":4.000008400001629e15}', '{"n":"400000******1629"}'],
    // The look reads names with their separators taken out, values included: "-" and " " read as "".
    ['a card of one dash', '{"card":"-"}', '{"card":"[redacted]"}'],
    ['a card of one space', '{"card":" "}', '{"card":"[redacted]"}'],
    // Past 2^53 a bare number is parsed to the nearest double, whose digits are not the card's.
    ['a 19-digit card sent as a bare number', '{"card":{"number":6011000990139424009}}', '{"card":{"number":"[redacted]"}}'],
    ['a 16-digit number past 2^53', '{"n":9007199254740993}', '{"n":"[redacted]"}'],
    // A card number split across an array's items: each digit masked in its place.
    ['a number split across an array', '{"pan":["4242","4242","4242","4242"]}', '{"pan":["4242","42**","****","4242"]}'],
    ['a number split across JSON numbers', '{"number":[5555,5555,5555,4444]}', '{"number":["5555","55**","****","4444"]}'],
    ['a split number with separators in its parts', '{"n":["4000 0000","0000-9995"]}', '{"n":["4000 00**","****-9995"]}'],
    [
      'a number split across a form field given more than once',
      'ccno=4242&ccno=4242&ccno=4242&ccno=4242&x=1',
      'ccno=4242&ccno=42**&ccno=****&ccno=4242&x=1',
    ],
    [
      'a number split across a form array',
      'ccno%5B%5D=5555+5555&ccno%5B%5D=5555+4444',
      `ccno%5B%5D=${encodeURIComponent('5555 55**')}&ccno%5B%5D=${encodeURIComponent('**** 4444')}`,
    ],
    [
      'a split number of JSON numbers written with fractions',
      '{"n":[4242.0,4242.00,4242.0,4242.0]}',
      '{"n":["4242","42**","****","4242"]}',
    ],
    ['a split number at the top', ' [ "4000", "0084", "0000", "1629" ]', '["4000","00**","****","1629"]'],
    ['JSON nested past 32 levels', `${'['.repeat(40)}"4242424242424242"${']'.repeat(40)}`, undefined],
  ])('%s', (_name, text, want) => {
    const out = masked(text);
    if (want !== undefined) expect(out).toBe(want);
    for (const secret of [
      '4242424242424242',
      '4000000000009995',
      '5555555555554444',
      '4000008400001629',
      '7391',
      '8264',
      '6157',
      'sk_live_zzz',
      'rk_live_zzz',
      'pv_test_1001',
      '6011000990139424',
    ])
      expect(out).not.toContain(secret);
    expect(out).not.toMatch(/"(123|999)"|=(123|999)\b/);
  });

  it.each([
    ['an answer with ids, times and transIDs', '{"transID":"176431234567800","created":1764312345678,"id":"pay_0Nq3Xk8e3kTMd9Qx"}'],
    ['a number that fails Luhn', '{"reference":"4242424242424241"}'],
    ['the masked form the gateway answers', '{"ccno":"424242XXXXXX4242","card":{"brand":"VISA","last4":"4242"}}'],
    ['a form without secrets', 'amount=10.50&currency=EUR'],
    ['amounts in an array', '{"amounts":[1050,2000,300,4242424242]}'],
    ['parts that fail Luhn together', '{"n":["4242","4242","4242","4241"]}'],
    ['parts with more digits than a card has', '{"n":["4242","4242","4242","4242","4242"]}'],
    ['form fields of digits, each given once', 'terNO=1001&month=12&year=2030&amount=10.50&phone=5555555555'],
    [
      'an authorized payment',
      '{"id":"pay_0VcKmQu7COp4Toqq","status":"authorized","card":{"brand":"VISA","last4":"4242","exp_year":2031},"created_at":"2026-11-29T04:43:40.607Z"}',
    ],
  ])('leaves %s as it is', (_name, text) => {
    expect(masked(text)).toBe(text);
  });
});

describe('maskedHeaders', () => {
  it('keeps the scheme of Authorization, drops cookies and masks values', () => {
    expect(
      maskedHeaders([
        ['Authorization', 'Bearer sk_test_sandbox'],
        ['Cookie', 'sandbox_control=abc'],
        ['X-Card', '4242424242424242'],
        ['Idempotency-Key', 'k-1'],
      ]),
    ).toEqual({ authorization: 'Bearer [redacted]', cookie: REDACTED, 'x-card': '424242******4242', 'idempotency-key': 'k-1' });
  });
});
