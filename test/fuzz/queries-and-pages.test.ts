// Fuzzing every GET (and DELETE) with random ids and query strings, and the page forms at
// /authenticate/:token and /pay/:token/* with mutated forms, CSRF values and content types.
// Never a 5xx; JSON errors have the documented shape; a refused request changes nothing (a wrong
// one-time code costs a try by design, so a 422 on the OTP page may change that challenge only).
import fc from 'fast-check';
import { afterEach, beforeEach, describe, it } from 'vitest';
import { CREDS, createTestSandbox, type TestSandbox } from '../helpers/test-sandbox.js';
import { FUZZ_SEED, bearerHeader, contentTypeFor, formBody, fuzzOptions, nastyValue, sendAndCheck } from './fuzz-kit.js';
import { csrfOf, seedObjects, type SeededObjects } from '../helpers/seed-objects.js';

let sb: TestSandbox;
let ids: SeededObjects;

beforeEach(async () => {
  sb = createTestSandbox();
  ids = await seedObjects(sb);
});
afterEach(() => sb.close());

/** A path segment: a real id of any kind, a near miss, or junk (always URL-encoded). */
const idSegment = (real: () => string[]) =>
  fc
    .oneof(
      fc.constantFrom(...real()),
      fc.constantFrom('', 'x', '0', '-1', 'pay_0000000000000000', 'null', '..', '%2e%2e', '__proto__', 'constructor', 'a'.repeat(3000)),
      fc.string({ maxLength: 40 }),
      fc.string({ unit: 'grapheme', maxLength: 10 }),
    )
    .map((s) => encodeURIComponent(s));

const queryKeys = [
  'tab',
  'q',
  'after',
  'payment',
  'limit',
  'starting_after',
  'ending_before',
  'status',
  'payment_id',
  'type',
  'created[gte]',
  'created[lte]',
  'since',
  'event',
  'event_id',
  'url',
  'merchant',
  'resource',
  'method',
  '__proto__',
  'constructor',
  'limit[]',
  'x',
];

/** A query string of 0-4 pairs with odd keys and values, repeated keys included. */
const queryString = fc
  .array(
    fc.tuple(
      fc.oneof(fc.constantFrom(...queryKeys), fc.string({ maxLength: 8 })),
      fc.oneof(
        nastyValue.map((v) => (typeof v === 'string' ? v.slice(0, 200) : (JSON.stringify(v) ?? ''))),
        fc.constantFrom('1', '0', '1000', '1001', '100000', '-5', '1.5', 'pending', 'succeeded', '10m', '2026-01-15T12:00:00Z'),
      ),
    ),
    { maxLength: 4 },
  )
  .map((pairs) =>
    pairs.length
      ? `?${new URLSearchParams(pairs.map(([k, v]): [string, string] => [k, v.replace(/[\ud800-\udfff]/g, '')])).toString()}`
      : '',
  );

const GETS: Array<[string, string, boolean]> = [
  // [template, method, bearer]; {id} is replaced with a generated segment.
  ['/v1/payments', 'GET', true],
  ['/v1/payments/{id}', 'GET', true],
  ['/v1/refunds', 'GET', true],
  ['/v1/refunds/{id}', 'GET', true],
  ['/v1/tokens/{id}', 'GET', true],
  ['/v1/events', 'GET', true],
  ['/v1/events/{id}', 'GET', true],
  ['/v1/webhook_endpoints', 'GET', true],
  ['/v1/webhook_endpoints/{id}', 'GET', true],
  ['/v1/webhook_endpoints/{id}', 'DELETE', true],
  ['/v1/checkout/sessions/{id}', 'GET', true],
  ['/api/s2s/status/{id}', 'GET', false],
  ['/_sandbox/health', 'GET', false],
  ['/_sandbox/transactions/{id}', 'GET', false],
  ['/_sandbox/deliveries', 'GET', false],
  ['/_sandbox/deliveries/{id}', 'GET', false],
  ['/_sandbox/events', 'GET', false],
  ['/_sandbox/events/{id}', 'GET', false],
  ['/_sandbox/faults', 'GET', false],
  ['/_sandbox/faults/{id}', 'DELETE', false],
  ['/_sandbox/scenarios', 'GET', false],
  ['/_sandbox/export', 'GET', false],
  ['/openapi.json', 'GET', false],
  ['/_sandbox/chargebacks', 'GET', false],
  ['/_sandbox/chargebacks/{id}', 'GET', false],
  ['/_sandbox/settlements', 'GET', false],
  ['/_sandbox/settlements/{id}', 'GET', false],
  ['/_sandbox/', 'GET', false],
  ['/_sandbox/dashboard/fragment', 'GET', false],
  ['/_sandbox/dashboard/deliveries/{id}', 'GET', false],
  ['/_sandbox/dashboard/deliveries/{id}/fragment', 'GET', false],
];

describe(`fuzzing GETs with random ids and query strings (seed ${FUZZ_SEED})`, () => {
  it.each(GETS)('%s (%s)', async (template, method, bearer) => {
    const all = () => Object.values(ids);
    const arb = fc.record({ id: idSegment(all), query: queryString, auth: bearer ? bearerHeader(CREDS.apiKey) : fc.constant(undefined) });
    await fc.assert(
      fc.asyncProperty(arb, async ({ id, query, auth }) => {
        const path = template.replace('{id}', id) + query;
        const headers: Record<string, string> = auth === undefined ? {} : { authorization: auth };
        // Deleting is allowed to change the database when it succeeds; a refused one may not.
        await sendAndCheck(sb, method, path, undefined, headers, { jsonErrors: true });
      }),
      fuzzOptions(),
    );
  });
});

describe(`fuzzing the page forms (seed ${FUZZ_SEED})`, () => {
  it('POST /authenticate/:token: mutated forms, csrf values, tokens and content types', async () => {
    const path = `/authenticate/${ids.challengeToken}`;
    const csrf = await csrfOf(sb, path);
    const arb = fc.record({
      body: formBody({ csrf, otp: '654321', action: 'submit' }),
      token: fc.oneof(
        { weight: 6, arbitrary: fc.constant(ids.challengeToken) },
        { weight: 1, arbitrary: idSegment(() => [ids.sessionToken]) },
      ),
    });
    await fc.assert(
      fc.asyncProperty(arb, async ({ body, token }) => {
        // A wrong code (422) costs one try of this challenge: that change is the point of the page.
        await sendAndCheck(
          sb,
          'POST',
          `/authenticate/${token}`,
          body,
          {},
          { jsonErrors: false, mayChange: (status) => (status === 422 ? ['challenges'] : []) },
        );
      }),
      fuzzOptions(),
    );
  });

  it.each(['card', 'ideal', 'ideal/outcome', 'sepa'])('POST /pay/:token/%s: mutated forms, csrf values and content types', async (step) => {
    const csrf = await csrfOf(sb, `/pay/${ids.sessionToken}`);
    const valid: Record<string, string> = {
      card: { csrf, number: '4000000000000002', expiry: '12/30', cvc: '123', name: 'Jane Doe' },
      ideal: { csrf, bank: 'ing' },
      'ideal/outcome': { csrf, outcome: 'failed' },
      sepa: { csrf, iban: 'XX00', holder: 'Jane Doe' },
    }[step] as unknown as Record<string, string>;
    const arb = fc.record({
      body: formBody(valid),
      token: fc.oneof(
        { weight: 6, arbitrary: fc.constant(ids.sessionToken) },
        { weight: 1, arbitrary: idSegment(() => [ids.challengeToken]) },
      ),
      type: contentTypeFor('application/x-www-form-urlencoded'),
    });
    await fc.assert(
      fc.asyncProperty(arb, async ({ body, token, type }) => {
        await sendAndCheck(sb, 'POST', `/pay/${token}/${step}`, { raw: body.raw, contentType: type }, {}, { jsonErrors: false });
      }),
      fuzzOptions(),
    );
  });

  it('GET /pay/:token and /authenticate/:token with random tokens and queries', async () => {
    const arb = fc.record({
      page: fc.constantFrom('/pay/', '/authenticate/', '/pay/{t}/ideal', '/pay/{t}/return'),
      token: idSegment(() => [ids.sessionToken, ids.challengeToken]),
      query: queryString,
    });
    await fc.assert(
      fc.asyncProperty(arb, async ({ page, token, query }) => {
        const path = (page.includes('{t}') ? page.replace('{t}', token) : page + token) + query;
        await sendAndCheck(sb, 'GET', path, undefined, {}, { jsonErrors: false });
      }),
      fuzzOptions(),
    );
  });
});
