// Fuzzing the inputs of issue 26's edges: fault rule route patterns (random PATHs of literal
// pieces and *, long ones and ones with many *), requests with long paths against them, and JSON
// text with lone surrogate escapes on the JSON routes of every family. Each answer is below 500
// with the documented error shape; a lone surrogate is always the 400 invalid_encoding and changes
// nothing; and the one-pass route matcher agrees with a regular expression on inputs short enough
// for the regular expression to be quick. The seed is fixed (FUZZ_SEED to change it).
import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parseRoutePattern, routeMatches } from '../../src/domain/api-faults.js';
import { CREDS, createTestSandbox, s2sBody, type TestSandbox } from '../helpers/test-sandbox.js';
import { AUTH, paymentBody } from '../helpers/payments-api.js';
import { FUZZ_SEED, fuzzOptions, loneSurrogateText, sendAndCheck } from './fuzz-kit.js';

let sb: TestSandbox;
beforeEach(() => {
  sb = createTestSandbox();
});
afterEach(() => sb.close());

/** Path text from the characters patterns and paths are made of, many of them the same, so pieces recur. */
const pathText = (maxLength: number) => fc.string({ unit: fc.constantFrom('a', 'b', '/', '-', '_', '.', '%', '1'), maxLength });
/** A route PATH: /v1/ or /api/, then pieces of text and * (sometimes far more than the limits allow). */
const routePath = fc
  .record({
    root: fc.constantFrom('/v1/', '/api/', '/v1', '/api'),
    pieces: fc.array(pathText(12), { maxLength: 12 }),
    long: fc.option(fc.integer({ min: 150, max: 400 }), { nil: undefined }),
  })
  .map(({ root, pieces, long }) => root + pieces.join('*') + (long === undefined ? '' : 'x'.repeat(long)));

describe(`fuzzing route patterns, long paths and lone surrogates (seed ${FUZZ_SEED})`, () => {
  it('the one-pass matcher says what a regular expression of .* says, on short inputs', () => {
    const regex = (path: string) => new RegExp(`^${path.replace(/[.+?^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*')}$`, 's');
    const short = fc.record({ pieces: fc.array(pathText(4), { minLength: 1, maxLength: 5 }), tail: pathText(24) });
    fc.assert(
      fc.property(short, fc.boolean(), ({ pieces, tail }, fromPattern) => {
        const path = `/v1/${pieces.join('*')}`;
        const parsed = parseRoutePattern(path);
        if (!('pattern' in parsed)) return;
        // Half the requests are built from the pattern's own pieces, so matches are common.
        const request = fromPattern
          ? `/v1/${pieces.map((p, i) => p + (i < pieces.length - 1 ? tail.slice(0, i + 1) : '')).join('')}`
          : `/v1/${tail}`;
        expect(routeMatches(parsed.pattern, 'GET', request), `${path} against ${request}`).toBe(regex(path).test(request));
      }),
      fuzzOptions(2000),
    );
  });

  it('POST /_sandbox/faults with random route patterns, then long requests against them: never a 5xx', async () => {
    const arb = fc.record({
      path: routePath,
      method: fc.constantFrom('', 'GET ', 'POST '),
      request: fc.oneof(
        pathText(40),
        fc.integer({ min: 500, max: 6000 }).map((n) => 'ab/'.repeat(n / 3)),
      ),
    });
    await fc.assert(
      fc.asyncProperty(arb, async ({ path, method, request }) => {
        await sb.request('DELETE', '/_sandbox/faults');
        const set = await sendAndCheck(
          sb,
          'POST',
          '/_sandbox/faults',
          { raw: JSON.stringify({ spec: `route=${method}${path}:latency=1ms` }), contentType: 'application/json' },
          {},
          { jsonErrors: true },
        );
        if (set.status === 400) expect(set.json.error.param).toBe('spec');
        else expect(set.status).toBe(201);
        for (const [verb, target] of [
          ['GET', `/v1/${request}`],
          ['POST', `/api/${request}`],
        ] as const) {
          await sendAndCheck(sb, verb, target, verb === 'POST' ? { raw: '{}', contentType: 'application/json' } : undefined, AUTH, {
            jsonErrors: true,
          });
        }
      }),
      fuzzOptions(150),
    );
  });

  it('a lone surrogate escape in any field or key of a JSON route is a 400 invalid_encoding that changes nothing', async () => {
    const routes: Array<[string, Record<string, unknown>, Record<string, string>]> = [
      ['/api/s2s', s2sBody({ reference: 'fuzz-lone' }), {}],
      ['/api/transactions/refund-request', { transID: '1', refundAmount: '1.00', public_key: CREDS.publicKey }, {}],
      ['/v1/payments', paymentBody(), AUTH],
      ['/v1/webhook_endpoints', { url: 'https://shop.example/hook', events: ['*'] }, AUTH],
      ['/v1/checkout/sessions', { amount: 100, currency: 'EUR', methods: ['card'], return_url: 'https://shop.example/r' }, AUTH],
      ['/_sandbox/scenarios', { name: 'n', entries: [{ reference: 'order-*', outcome: 'approve' }] }, {}],
      ['/_sandbox/faults', { spec: 'duplicate=1' }, {}],
      ['/_sandbox/chargebacks', { transID: '1' }, {}],
    ];
    const arb = fc
      .constantFrom(...routes)
      .chain(([path, valid, headers]) => loneSurrogateText(valid).map((raw) => ({ path, raw, headers })));
    await fc.assert(
      fc.asyncProperty(arb, async ({ path, raw, headers }) => {
        const res = await sendAndCheck(sb, 'POST', path, { raw, contentType: 'application/json' }, headers, { jsonErrors: true });
        expect(res.status, `${path} ${raw.slice(0, 200)}`).toBe(400);
        expect(res.json.error.code).toBe('invalid_encoding');
      }),
      fuzzOptions(),
    );
  });
});
