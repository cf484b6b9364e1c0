// The ids the journal keeps a request under: object ids by their prefixes, 15-digit transIDs and
// page tokens, read from the request's path, query and bodies. touchedIds() skips a pattern where it
// cannot match (no underscore, no page route) only to save time: the property holds it to the
// plain reading, every pattern over every text, kept here as the reference.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isTransIdShaped } from '../../src/domain/journal-mask.js';
import { MAX_TOUCHED_IDS, touchedIds } from '../../src/domain/touched-ids.js';

function reference(texts: ReadonlyArray<string | null | undefined>): string[] {
  const found = new Set<string>();
  for (const text of texts) {
    if (!text) continue;
    for (const match of text.matchAll(/\b(?:pay|cs|dp|evt|rfd|st|tok|we|whd)_[0-9A-Za-z]{16}\b/g)) found.add(match[0]);
    for (const match of text.matchAll(/(?<!\d)\d{15}(?!\d)/g)) if (isTransIdShaped(match[0])) found.add(match[0]);
    for (const match of text.matchAll(/\/(?:authenticate|pay|status)\/([0-9a-z]{9}[A-Za-z0-9_-]{34})(?![A-Za-z0-9_-])/g))
      if (match[1]) found.add(match[1]);
    if (found.size >= MAX_TOUCHED_IDS) break;
  }
  return [...found].slice(0, MAX_TOUCHED_IDS);
}

const TOKEN = `0vcqyv2po${'AbC-_9'.repeat(5)}xyzw`;

describe('touchedIds', () => {
  it('reads object ids, transIDs and page tokens, each once, in the order found', () => {
    const answer = `{"id":"pay_0VcQyv2POVmUOsqx","transID":"176431234567800","authurl":"http://127.0.0.1:4010/authenticate/${TOKEN}","event":"evt_0VcQyv2POVmUOsqx"}`;
    expect(touchedIds(['/v1/payments/pay_0VcQyv2POVmUOsqx', '', null, answer])).toEqual([
      'pay_0VcQyv2POVmUOsqx',
      'evt_0VcQyv2POVmUOsqx',
      '176431234567800',
      TOKEN,
    ]);
  });

  it('leaves what only looks like an id', () => {
    // A prefix inside a word, 15 digits inside a longer run or not shaped like a time, a token cut short.
    const text = `xpay_0VcQyv2POVmUOsqx a_pay_0VcQyv2POVmUOsqx 4242424242424242424 123456789012345 /pay/${TOKEN.slice(1)}`;
    expect(touchedIds([text])).toEqual([]);
  });

  it('keeps at most MAX_TOUCHED_IDS', () => {
    const many = Array.from({ length: MAX_TOUCHED_IDS + 5 }, (_, i) => `"pay_0VcQyv2POV${String(i).padStart(6, '0')}"`).join(',');
    expect(touchedIds([many])).toHaveLength(MAX_TOUCHED_IDS);
  });

  it('reads every text as the reference does', () => {
    const pieces = fc.oneof(
      fc.constantFrom('pay_', 'cs_', 'whd_', 'xtok_', '_st_', 'evt_0VcQyv2POVmUOsqx', 'we_0VcQyv2POVmUOsqxZ'),
      fc.stringMatching(/^[0-9A-Za-z]{16}$/),
      fc.constantFrom('176431234567800', '1764312345678001', '17643123456780', '999999999999999', '4242424242424242'),
      fc.stringMatching(/^\d{13,17}$/),
      fc.constantFrom('/authenticate/', '/pay/', '/status/', '/api/status/', 'http://127.0.0.1:4010', TOKEN, `${TOKEN}-`),
      fc.constantFrom(' ', '"', ':', ',', '/', '_', '-', '{', '}', '\n'),
      fc.string({ maxLength: 6 }),
    );
    const text = fc.array(pieces, { maxLength: 12 }).map((parts) => parts.join(''));
    fc.assert(
      fc.property(fc.array(fc.option(text, { nil: null }), { maxLength: 4 }), (texts) => {
        expect(touchedIds(texts)).toEqual(reference(texts));
      }),
      { numRuns: 2000 },
    );
  });
});
