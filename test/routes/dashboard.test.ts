// The dashboard at /_sandbox/ over app.request(): the lists and their filters, keyset pages,
// escaping, the CSP, the CSRF-protected forms (Approve / Decline, Replay), and that bad input is a
// 4xx in the documented error shape, never a 500.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createTestSandbox, s2sBody, type TestSandbox } from '../helpers/test-sandbox.js';
import { AUTH, createPayment } from '../helpers/payments-api.js';

let sb: TestSandbox;
beforeEach(() => {
  sb = createTestSandbox();
});
afterEach(() => sb.close());

async function s2s(overrides: Record<string, unknown> = {}) {
  const res = await sb.request('POST', '/api/s2s', s2sBody(overrides));
  expect(res.status, res.text).toBe(200);
  return res.json as { transID: string; reference: string };
}

async function page(path: string) {
  const res = await sb.request('GET', path);
  expect(res.status, res.text).toBe(200);
  return res;
}

/** The data-id of every row the list shows, in order. */
const rowIds = (html: string) => [...html.matchAll(/<tr data-id="([^"]+)"/g)].map((m) => m[1]);
const csrfOf = (html: string) => /name="csrf" value="([^"]+)"/.exec(html)![1]!;

describe('lists', () => {
  it('shows S2S transactions newest first with their status, and Approve / Decline only on open authentications', async () => {
    const pending = await s2s({ ccno: '4000000000003220', reference: 'ord_pending' });
    const approved = await s2s({ ccno: '4242424242424242', reference: 'ord_frictionless' });
    const res = await page('/_sandbox/');
    expect(rowIds(res.text)).toEqual(expect.arrayContaining([pending.transID, approved.transID]));
    const rowOf = (id: string) => new RegExp(`<tr data-id="${id}">.*?</tr>`).exec(res.text)![0];
    expect(rowOf(pending.transID)).toContain('Pending');
    expect(rowOf(pending.transID)).toContain('value="approve"');
    expect(rowOf(approved.transID)).toContain('Test Approved');
    expect(rowOf(approved.transID)).not.toContain('value="approve"');
  });

  it('opens, with no tab asked for, on the payments used last; a filter without a tab still means S2S transactions', async () => {
    const current = (html: string) => /<a href="[^"]*" aria-current="page">([^<]+)<\/a>/.exec(html)?.[1];
    expect(current((await page('/_sandbox/')).text)).toBe('S2S transactions');
    const payment = await createPayment(sb, { reference: 'ord_latest' });
    sb.clock.advance(1000);
    const bare = await page('/_sandbox/');
    expect(current(bare.text)).toBe('/v1/ payments');
    expect(rowIds(bare.text)).toEqual([payment.id]);
    expect(bare.text).not.toContain('id="landing"');
    expect(current((await page('/_sandbox/?status=24')).text)).toBe('S2S transactions');
    await s2s({ ccno: '4242424242424242' });
    expect(current((await page('/_sandbox/?merchant=mer_sandbox')).text)).toBe('S2S transactions');
  });

  it('serves the pages with a CSP that allows only its own script, and no inline script', async () => {
    const res = await page('/_sandbox/');
    const csp = res.headers.get('content-security-policy')!;
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("connect-src 'self'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect([...res.text.matchAll(/<script([^>]*)>/g)].map((m) => m[1])).toEqual([' src="/_sandbox/assets/dashboard.js" defer=""']);
    expect(res.text).not.toMatch(/ on[a-z]+="/);
    const js = await page('/_sandbox/assets/dashboard.js');
    expect(js.headers.get('content-type')).toContain('text/javascript');
    expect(js.text).toContain("new EventSource('/_sandbox/stream')");
  });

  it('redirects /_sandbox to /_sandbox/ keeping the query', async () => {
    const res = await sb.request('GET', '/_sandbox?tab=events');
    expect(res.status).toBe(308);
    expect(res.headers.get('location')).toBe('/_sandbox/?tab=events');
  });

  it('lists /v1/ payments, checkout sessions, events and deliveries of every merchant', async () => {
    const payment = await createPayment(sb, { reference: 'ord_v1' });
    const other = await createPayment(sb, { reference: 'ord_other' }, { authorization: 'Bearer sk_test_other' });
    const session = await sb.request(
      'POST',
      '/v1/checkout/sessions',
      { amount: 990, currency: 'EUR', methods: ['card'], return_url: 'https://shop.example/r', reference: 'ord_cs' },
      AUTH,
    );
    expect(session.status).toBe(200);
    expect(rowIds((await page('/_sandbox/?tab=payments')).text)).toEqual(expect.arrayContaining([payment.id, other.id]));
    expect(rowIds((await page('/_sandbox/?tab=sessions')).text)).toEqual([session.json.id]);
    const events = await page(`/_sandbox/?tab=events&q=${payment.id}`);
    expect(events.text).toContain('payment.authorized');
    const eventId = rowIds(events.text)[0]!;
    const deliveries = await page(`/_sandbox/?tab=deliveries&q=${eventId}`);
    expect(deliveries.text).toContain('https://shop.example/webhooks');
    expect(deliveries.text).toContain(`href="/_sandbox/dashboard/deliveries/`);
  });

  it('lists chargebacks and settlements, with clawbacks, filtered by status and found by a payment id', async () => {
    const disputed = await createPayment(sb, { amount: 1000 });
    const kept = await createPayment(sb, { amount: 2000 });
    const first = await sb.request('POST', '/_sandbox/settlements', {});
    expect(first.status, first.text).toBe(200);
    const settled = first.json.data[0].id as string;
    const cb = await sb.request('POST', '/_sandbox/chargebacks', { payment_id: disputed.id, reason: 'product_not_received' });
    expect(cb.status, cb.text).toBe(201);
    expect((await sb.request('POST', `/_sandbox/chargebacks/${cb.json.id}/lose`)).status).toBe(200);
    const second = await sb.request('POST', '/_sandbox/settlements', {});
    const clawback = second.json.data[0].id as string;

    const chargebacks = await page('/_sandbox/?tab=chargebacks');
    expect(rowIds(chargebacks.text)).toEqual([cb.json.id]);
    const cbRow = new RegExp(`<tr data-id="${cb.json.id}">.*?</tr>`).exec(chargebacks.text)![0];
    expect(cbRow).toContain(disputed.id);
    expect(cbRow).toContain('10.00 EUR');
    expect(cbRow).toContain('product_not_received');
    expect(cbRow).toContain('<span class="status bad">lost</span>');
    expect(rowIds((await page('/_sandbox/?tab=chargebacks&status=open')).text)).toEqual([]);
    expect(rowIds((await page(`/_sandbox/?tab=chargebacks&q=${disputed.id}`)).text)).toEqual([cb.json.id]);

    const settlements = await page('/_sandbox/?tab=settlements');
    expect(rowIds(settlements.text).sort()).toEqual([settled, clawback].sort());
    const clawRow = new RegExp(`<tr data-id="${clawback}">.*?</tr>`).exec(settlements.text)![0];
    expect(clawRow).toContain('0 + 1 clawback');
    expect(clawRow).toContain('-10.00 EUR');
    expect(clawRow).toContain('pays out');
    // A payment id finds the settlement that paid it out and the one that clawed it back.
    expect(rowIds((await page(`/_sandbox/?tab=settlements&q=${disputed.id}`)).text).sort()).toEqual([settled, clawback].sort());
    expect(rowIds((await page(`/_sandbox/?tab=settlements&q=${kept.id}`)).text)).toEqual([settled]);
    expect(rowIds((await page('/_sandbox/?tab=settlements&status=paid')).text)).toEqual([]);
    expect((await page('/_sandbox/?tab=settlements')).text).toContain(
      '<a href="/_sandbox/?tab=settlements" aria-current="page">Settlements</a>',
    );
  });

  it('escapes what requests put in (a session reference with markup)', async () => {
    const res = await sb.request(
      'POST',
      '/v1/checkout/sessions',
      { amount: 990, currency: 'EUR', methods: ['card'], return_url: 'https://shop.example/r', reference: '<img src=x onerror=alert(1)>' },
      AUTH,
    );
    expect(res.status).toBe(200);
    const html = (await page('/_sandbox/?tab=sessions')).text;
    expect(html).toContain('&lt;img src=x onerror=alert(1)&gt;');
    expect(html).not.toContain('<img src=x');
  });

  it('filters by status, by event type and by exact id or reference', async () => {
    const declined = await s2s({ ccno: '4000000000000002', reference: 'ord_declined' });
    const approved = await s2s({ ccno: '4242424242424242', reference: 'ord_ok' });
    expect(rowIds((await page('/_sandbox/?tab=transactions&status=24')).text)).toEqual([declined.transID]);
    expect(rowIds((await page('/_sandbox/?tab=transactions&q=ord_ok')).text)).toEqual([approved.transID]);
    expect(rowIds((await page(`/_sandbox/?tab=transactions&q=${declined.transID}`)).text)).toEqual([declined.transID]);
    expect(rowIds((await page('/_sandbox/?tab=transactions&status=&q=')).text)).toHaveLength(2);
    const declinedEvents = rowIds((await page('/_sandbox/?tab=events&type=payment.declined')).text);
    expect(declinedEvents).toHaveLength(1);
    const selected = (await page('/_sandbox/?tab=transactions&status=24')).text;
    expect(selected).toContain('<option value="24" selected="">24 Test Declined</option>');
  });

  it('pages by keyset: 50 rows, then the rest behind "Older", and "Newest" back', async () => {
    // The fixed clock gives every row the same created_at: the id breaks the tie, so no row repeats or goes missing.
    const created = [];
    for (let i = 0; i < 53; i++) created.push((await s2s({ ccno: '4000000000000002' })).transID);
    const first = await page('/_sandbox/');
    const firstIds = rowIds(first.text);
    expect(firstIds).toHaveLength(50);
    const older = /<a href="([^"]+)" rel="next">Older/.exec(first.text)![1]!.replaceAll('&amp;', '&');
    expect(older).toBe(`/_sandbox/?tab=transactions&starting_after=${firstIds[49]}`);
    const second = await page(older);
    const secondIds = rowIds(second.text);
    expect(secondIds).toHaveLength(3);
    expect([...firstIds, ...secondIds].sort()).toEqual([...created].sort());
    expect(second.text).toContain('« Newest');
    expect(second.text).not.toContain('rel="next"');
  });

  it('serves the list alone as the fragment the live script swaps in', async () => {
    const t = await s2s();
    const res = await page('/_sandbox/dashboard/fragment?tab=transactions');
    expect(res.text).toMatch(/^<section class="table-scroll"[^>]*><table data-tab="transactions">/);
    expect(rowIds(res.text)).toEqual([t.transID]);
    expect(res.text).not.toContain('<html');
    expect(res.headers.get('cache-control')).toBe('no-store');
  });
});

describe('bad input is a 4xx naming the field', () => {
  it.each([
    ['/_sandbox/?tab=refunds', 400, 'parameter_invalid', 'tab'],
    ['/_sandbox/?tab=transactions&status=99', 400, 'parameter_invalid', 'status'],
    ['/_sandbox/?tab=events&status=open', 400, 'parameter_invalid', 'status'],
    ['/_sandbox/?tab=payments&type=payment.authorized', 400, 'parameter_invalid', 'type'],
    ['/_sandbox/?tab=events&type=Payment%20Authorized', 400, 'parameter_invalid', 'type'],
    ['/_sandbox/?tab=payments&starting_after=pay_nothere', 400, 'parameter_invalid', 'starting_after'],
    ['/_sandbox/?tab=chargebacks&status=pending', 400, 'parameter_invalid', 'status'],
    ['/_sandbox/?tab=settlements&type=settlement.paid', 400, 'parameter_invalid', 'type'],
    ['/_sandbox/?tab=settlements&starting_after=st_nothere', 400, 'parameter_invalid', 'starting_after'],
    ['/_sandbox/?page=2', 400, 'parameter_unknown', 'page'],
    ['/_sandbox/dashboard/fragment?tab=deliveries&status=done', 400, 'parameter_invalid', 'status'],
    ['/_sandbox/dashboard/deliveries/whd_nothere', 404, 'resource_missing', 'id'],
  ])('GET %s -> %i %s (%s)', async (path, status, code, param) => {
    const res = await sb.request('GET', path);
    expect(res.status).toBe(status);
    expect(res.json.error).toMatchObject({ code, param });
    expect(res.json.error.message).toMatch(new RegExp(param === 'id' ? 'no delivery' : param));
  });

  it('refuses a Host that is not a loopback name (DNS rebinding)', async () => {
    const res = await sb.request('GET', '/_sandbox/', undefined, { host: 'evil.example:4010' });
    expect(res.status).toBe(403);
    expect(res.json.error).toMatchObject({ code: 'host_not_allowed', param: 'host' });
    expect((await sb.request('GET', '/_sandbox/', undefined, { host: '127.0.0.1:4010' })).status).toBe(200);
  });

  it('asks for the control token when one is set', async () => {
    const guarded = createTestSandbox({ controlToken: 'ctl_secret' });
    try {
      const res = await guarded.request('GET', '/_sandbox/');
      expect(res.status).toBe(401);
      expect(res.json.error.code).toBe('control_forbidden');
      expect((await guarded.request('GET', '/_sandbox/', undefined, { authorization: 'Bearer ctl_secret' })).status).toBe(200);
    } finally {
      guarded.close();
    }
  });
});

describe('Approve / Decline', () => {
  it('approves a pending S2S transaction (Test Approved, webhook queued) and returns to the page it came from', async () => {
    const t = await s2s({ ccno: '4000000000003220' });
    const back = '/_sandbox/?tab=transactions&status=0';
    const csrf = csrfOf((await page(back)).text);
    const res = await sb.postForm('/_sandbox/dashboard/authenticate', {
      csrf,
      subject: 'transaction',
      id: t.transID,
      outcome: 'approve',
      back,
    });
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe(back);
    const after = await sb.request('GET', `/_sandbox/transactions/${t.transID}`);
    expect(after.json).toMatchObject({ order_status: '25', status: 'Test Approved', authentication: { state: 'passed' } });
    expect(rowIds((await page(back)).text)).toEqual([]);
  });

  it('declines a /v1/ payment waiting for 3-D Secure', async () => {
    const payment = await createPayment(sb, { token: 'tok_threeds_required' });
    expect(payment.status).toBe('requires_action');
    const list = (await page('/_sandbox/?tab=payments')).text;
    expect(list).toContain('name="subject" value="payment"');
    const res = await sb.postForm('/_sandbox/dashboard/authenticate', {
      csrf: csrfOf(list),
      subject: 'payment',
      id: payment.id,
      outcome: 'decline',
    });
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe('/_sandbox/?tab=payments');
    const after = await sb.request('GET', `/v1/payments/${payment.id}`, undefined, AUTH);
    expect(after.json.status).toBe('declined');
  });

  it.each([
    ['approve', 'captured', 'complete'],
    ['decline', 'declined', 'open'],
  ])('%ss an iDEAL payment waiting at the bank, as the bank page would', async (outcome, status, sessionStatus) => {
    const session = await sb.request(
      'POST',
      '/v1/checkout/sessions',
      { amount: 1999, currency: 'EUR', methods: ['ideal'], return_url: 'https://shop.example/r' },
      AUTH,
    );
    const pay = new URL(session.json.url).pathname;
    const chosen = await sb.postForm(`${pay}/ideal`, { csrf: csrfOf((await page(pay)).text), bank: 'INGBNL2A' });
    expect(chosen.status, chosen.text).toBe(303);
    const paymentId = (await sb.request('GET', '/v1/payments?limit=1', undefined, AUTH)).json.data[0].id as string;
    const list = (await page('/_sandbox/?tab=payments')).text;
    const row = new RegExp(`<tr data-id="${paymentId}">.*?</tr>`).exec(list)![0];
    expect(row).toContain('requires_action');
    expect(row).toContain('value="approve"');
    expect(row).toContain('value="decline"');
    const res = await sb.postForm('/_sandbox/dashboard/authenticate', { csrf: csrfOf(list), subject: 'payment', id: paymentId, outcome });
    expect(res.status, res.text).toBe(303);
    expect((await sb.request('GET', `/v1/payments/${paymentId}`, undefined, AUTH)).json.status).toBe(status);
    expect((await sb.request('GET', `/v1/checkout/sessions/${session.json.id}`, undefined, AUTH)).json.status).toBe(sessionStatus);
    // Decided: the buttons are gone and a second try finds nothing to decide.
    expect(new RegExp(`<tr data-id="${paymentId}">.*?</tr>`).exec((await page('/_sandbox/?tab=payments')).text)![0]).not.toContain(
      'value="approve"',
    );
    expect(
      (await sb.postForm('/_sandbox/dashboard/authenticate', { csrf: csrfOf(list), subject: 'payment', id: paymentId, outcome })).status,
    ).toBe(404);
  });

  it('refuses a form without the page token, and changes nothing', async () => {
    const t = await s2s({ ccno: '4000000000003220' });
    for (const csrf of ['', 'forged']) {
      const res = await sb.postForm('/_sandbox/dashboard/authenticate', {
        csrf,
        subject: 'transaction',
        id: t.transID,
        outcome: 'approve',
      });
      expect(res.status).toBe(401);
      expect(res.json.error).toMatchObject({ code: 'control_forbidden', param: 'csrf' });
    }
    expect((await sb.request('GET', `/_sandbox/transactions/${t.transID}`)).json.status).toBe('Pending');
  });

  it('answers 400, 404 and 409 for a bad outcome, an unknown id, a finished authentication or a foreign return path', async () => {
    const t = await s2s({ ccno: '4000000000003220' });
    const csrf = csrfOf((await page('/_sandbox/')).text);
    const bad = await sb.postForm('/_sandbox/dashboard/authenticate', { csrf, subject: 'transaction', id: t.transID, outcome: 'maybe' });
    expect(bad.status).toBe(400);
    expect(bad.json.error).toMatchObject({ code: 'parameter_invalid', param: 'outcome' });
    const away = await sb.postForm('/_sandbox/dashboard/authenticate', {
      csrf,
      subject: 'transaction',
      id: t.transID,
      outcome: 'approve',
      back: 'https://evil.example/',
    });
    expect(away.status).toBe(400);
    expect(away.json.error.param).toBe('back');
    const missing = await sb.postForm('/_sandbox/dashboard/authenticate', { csrf, subject: 'transaction', id: '123', outcome: 'approve' });
    expect(missing.status).toBe(404);
    expect(missing.json.error.param).toBe('id');
    expect(
      (await sb.postForm('/_sandbox/dashboard/authenticate', { csrf, subject: 'transaction', id: t.transID, outcome: 'decline' })).status,
    ).toBe(303);
    const again = await sb.postForm('/_sandbox/dashboard/authenticate', {
      csrf,
      subject: 'transaction',
      id: t.transID,
      outcome: 'approve',
    });
    expect(again.status).toBe(409);
    expect(again.json.error.code).toBe('invalid_state');
    const json = await sb.request('POST', '/_sandbox/dashboard/authenticate', {
      csrf,
      subject: 'transaction',
      id: t.transID,
      outcome: 'approve',
    });
    expect(json.status).toBe(400);
    expect(json.json.error.code).toBe('unsupported_content_type');
  });
});

describe('a delivery and Replay', () => {
  it('shows the delivery not tried yet, replays it as a new manual delivery and lists the replay on the same page', async () => {
    const t = await s2s({ ccno: '4242424242424242' });
    const deliveries = (await page(`/_sandbox/?tab=deliveries`)).text;
    const id = rowIds(deliveries)[0]!;
    const detail = await page(`/_sandbox/dashboard/deliveries/${id}`);
    expect(detail.text).toContain('Not tried yet');
    expect(detail.text).toContain(t.transID);
    expect(detail.text).toContain('x-sandbox-signature: sha256=');
    expect(detail.text).toContain('None yet');
    const res = await sb.postForm(`/_sandbox/dashboard/deliveries/${id}/replay`, { csrf: csrfOf(detail.text) });
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe(`/_sandbox/dashboard/deliveries/${id}#replays`);
    const after = await page(`/_sandbox/dashboard/deliveries/${id}`);
    const replayId = rowIds(after.text)[0]!;
    expect(replayId).toMatch(/^whd_/);
    expect(replayId).not.toBe(id);
    expect(after.text).toContain(`${replayId}</a> (replay)`);
    expect(rowIds((await page(`/_sandbox/dashboard/deliveries/${id}/fragment`)).text)).toEqual([replayId]);
    const replay = await page(`/_sandbox/dashboard/deliveries/${replayId}`);
    expect(replay.text).toContain('(replay)');
    expect(rowIds(replay.text)).toEqual([id]);
  });

  it('shows the signature diagnosis of an attempt the handler refused with 400, 401 or 403, and none for other answers', async () => {
    await s2s({ ccno: '4242424242424242' });
    const id = rowIds((await page('/_sandbox/?tab=deliveries')).text)[0]!;
    const { request } = (await sb.request('GET', `/_sandbox/deliveries/${id}`)).json as {
      request: { headers: Record<string, string>; body: string };
    };
    const attempt = (n: number, status: number, headers = request.headers, fault: string | null = null) =>
      sb.store.deliveries.recordAttempt({
        deliveryId: id,
        attempt: n,
        startedAt: sb.clock.now(),
        requestHeaders: headers,
        requestBody: request.body,
        responseStatus: status,
        responseHeaders: { 'content-type': 'text/plain' },
        responseBody: 'no',
        latencyMs: 3,
        errorKind: 'http_status',
        errorMessage: `answered ${status}`,
        fault,
      });
    attempt(1, 401);
    attempt(2, 403, { ...request.headers, 'x-sandbox-signature': `sha256=${'0'.repeat(64)}` }, 'bad-signature');
    attempt(3, 500);
    const detail = await page(`/_sandbox/dashboard/deliveries/${id}`);
    const refusals = [...detail.text.matchAll(/<article class="attempt"[^>]* data-attempt="(\d)">.*?<\/article>/gs)].map(
      (m) => [m[1], /<div class="refusal" data-cause="([a-z_]+)"><p>(.*?)<\/p>/s.exec(m[0])?.slice(1) ?? null] as const,
    );
    expect(refusals).toEqual([
      [
        '1',
        [
          'valid',
          expect.stringMatching(
            /^Signature check of what was sent \(the handler answered 401\): <code>valid<\/code>, <span class="diagnosis">signature valid: the body and headers are exactly what the sandbox sent in attempt 1 of delivery whd_\S+, signed with merchant mer_sandbox&#39;s webhook secret.*run sandbox verify with the headers, raw body and secret it had/,
          ),
        ],
      ],
      [
        '2',
        [
          'injected_fault',
          expect.stringContaining('the handler answered 403): <code>injected_fault</code>, <span class="diagnosis">the sandbox signed'),
        ],
      ],
      ['3', null],
    ]);
    // The live fragment shows the same.
    expect((await page(`/_sandbox/dashboard/deliveries/${id}/fragment`)).text).toContain('data-cause="injected_fault"');
  });

  it('refuses a replay without the page token', async () => {
    await s2s({ ccno: '4242424242424242' });
    const id = rowIds((await page('/_sandbox/?tab=deliveries')).text)[0]!;
    const res = await sb.postForm(`/_sandbox/dashboard/deliveries/${id}/replay`, { csrf: 'forged' });
    expect(res.status).toBe(401);
    expect(res.json.error.param).toBe('csrf');
    expect(rowIds((await page('/_sandbox/?tab=deliveries')).text)).toHaveLength(1);
  });
});
