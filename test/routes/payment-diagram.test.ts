// A payment's page in the dashboard (/_sandbox/dashboard/payments/{id}) over app.request(): the
// sequence diagram lists the arrows in order, between the right lanes, for each path (frictionless,
// a 3-D Secure challenge approved and failed, a refund, a replayed and a refused webhook delivery),
// each opening what it carried; an unknown id is a 404 page that says what the page takes; what a
// request carried is shown as text; every payment id of the lists links to the page.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { csrfOf } from '../helpers/seed-objects.js';
import { CREDS, createTestSandbox, s2sBody, type TestSandbox } from '../helpers/test-sandbox.js';

let sb: TestSandbox;
beforeEach(() => {
  sb = createTestSandbox();
});
afterEach(() => sb.close());

const bearer = { authorization: `Bearer ${CREDS.apiKey}` };
const card = (number: string) => ({ number, exp_month: 12, exp_year: 2030, cvc: '123' });
const pagePath = (id: string) => `/_sandbox/dashboard/payments/${id}`;

const htmlText = (html: string) =>
  html
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&amp;/g, '&');

/** The diagram's arrows in page order, as "from > to: label" (a note: "from: label"). */
function arrows(html: string): string[] {
  return [
    ...html.matchAll(/<span class="arrow ([^"]*)" data-from="(\w+)" data-to="(\w+)">.*?<span class="label">(.*?)<\/span><\/span>/g),
  ].map(([, classes, from, to, label]) =>
    classes!.startsWith('note') ? `${from}: ${htmlText(label!)}` : `${from} > ${to}: ${htmlText(label!)}`,
  );
}

async function diagram(id: string): Promise<{ html: string; arrows: string[] }> {
  const res = await sb.get(pagePath(id));
  expect(res.status, res.text).toBe(200);
  expect(res.headers.get('content-type')).toContain('text/html');
  return { html: res.text, arrows: arrows(res.text) };
}

/** An S2S payment whose webhook goes nowhere (no worker runs here); its first delivery's id. */
async function s2sWithDelivery() {
  const res = await sb.post('/api/s2s', s2sBody({ ccno: '4242424242424242' }));
  expect(res.status, res.text).toBe(200);
  const deliveries = await sb.get(`/_sandbox/deliveries?limit=1`);
  return { transID: res.json.transID as string, delivery: deliveries.json.data[0].id as string };
}

/** Records an attempt of a delivery as the worker would, with the handler's answer `status`. */
async function attempt(delivery: string, n: number, status: number) {
  const { request } = (await sb.get(`/_sandbox/deliveries/${delivery}`)).json as {
    request: { headers: Record<string, string>; body: string };
  };
  sb.clock.advance(1000);
  sb.store.deliveries.recordAttempt({
    deliveryId: delivery,
    attempt: n,
    startedAt: sb.clock.now(),
    requestHeaders: request.headers,
    requestBody: request.body,
    responseStatus: status,
    responseHeaders: { 'content-type': 'text/plain' },
    responseBody: status < 300 ? 'ok' : 'bad signature',
    latencyMs: 4,
    errorKind: status < 300 ? null : 'http_status',
    errorMessage: status < 300 ? null : `answered ${status}`,
    fault: null,
  });
}

describe('the sequence diagram of a payment', () => {
  it('a frictionless /v1/ payment: the create and its answer, then the states its test card reached, in order', async () => {
    const pay = await sb.post('/v1/payments', { amount: 1050, currency: 'EUR', card: card('4242424242424242') }, bearer);
    expect(pay.status, pay.text).toBe(200);
    sb.clock.advance(1000);
    await sb.get(`/v1/payments/${pay.json.id}`, bearer);
    const { html, arrows: shown } = await diagram(pay.json.id);
    expect(shown).toEqual([
      'merchant > sandbox: POST /v1/payments',
      'sandbox > merchant: 200',
      'sandbox: payment.authorized → authorized',
      'sandbox: payment.captured → captured',
      `merchant > sandbox: GET /v1/payments/${pay.json.id}`,
      'sandbox > merchant: 200',
    ]);
    // Each step opens onto what it carried: the request's masked body, the change's cause and event.
    const steps = html.split('<li class="step"').slice(1);
    expect(steps[0]).toContain('424242******4242');
    expect(steps[0]).not.toContain('4242424242424242');
    expect(steps[1]).toMatch(/Cause<\/dt><dd>test card 424242…4242/);
    expect(steps[1]).toMatch(/href="#req_\w+">the request<\/a>/);
    expect(steps[1]).toMatch(/href="\/_sandbox\/\?tab=events&amp;q=evt_\w+"/);
    // Looking at the page is not part of the payment's story.
    expect((await diagram(pay.json.id)).arrows).toEqual(shown);
  });

  it.each([
    ['approved', '123456', /^sandbox: payment\.authorized → \d+ Test Approved$/],
    ['failed', '000000', /^sandbox: payment\.declined → \d+ Test Declined$/],
  ])(
    'an S2S payment with a 3-D Secure challenge %s: the create, the browser opening the page and submitting, the change',
    async (_name, otp, change) => {
      const res = await sb.post('/api/s2s', s2sBody({ ccno: '4000000000003220' }));
      expect(res.status, res.text).toBe(200);
      const path = new URL(res.json.authurl).pathname;
      const csrf = await csrfOf(sb, path);
      const choice = await sb.postForm(path, { csrf, otp, action: 'submit' });
      expect(choice.status).toBeLessThan(400);
      const { arrows: shown } = await diagram(res.json.transID);
      const page = path.replace(/\/[A-Za-z0-9_-]{43}$/, '/…');
      const created = shown.indexOf('merchant > sandbox: POST /api/s2s');
      const opened = shown.indexOf(`browser > sandbox: GET ${page}`);
      const submitted = shown.indexOf(`browser > sandbox: POST ${page}`);
      const changed = shown.findIndex((line) => change.test(line));
      expect(
        [created, opened, submitted, changed].every((i) => i >= 0),
        shown.join('\n'),
      ).toBe(true);
      expect(created).toBeLessThan(opened);
      expect(opened).toBeLessThan(submitted);
      expect(submitted).toBeLessThan(changed);
      expect(shown[created + 1]).toBe('sandbox > merchant: 200');
      expect(shown[opened + 1]).toBe('sandbox > browser: 200');
    },
  );

  it("a refund: the refund's request and its change after the payment's, found by the refund's id too", async () => {
    const pay = await sb.post('/v1/payments', { amount: 2000, currency: 'EUR', card: card('4242424242424242') }, bearer);
    sb.clock.advance(1000);
    const refund = await sb.post('/v1/refunds', { payment_id: pay.json.id, amount: 500 }, bearer);
    expect(refund.status, refund.text).toBe(200);
    const { arrows: shown } = await diagram(pay.json.id);
    expect(shown.slice(4)).toEqual([
      'merchant > sandbox: POST /v1/refunds',
      'sandbox > merchant: 200',
      'sandbox: refund.created → pending',
      ...shown.slice(7),
    ]);
    expect(shown.slice(0, 2)).toEqual(['merchant > sandbox: POST /v1/payments', 'sandbox > merchant: 200']);
    const byRefund = await diagram(refund.json.id);
    expect(byRefund.arrows).toEqual(shown);
    expect(byRefund.html).toContain(`Payment <code>${pay.json.id}</code>`);
  });

  it('a replayed delivery: the attempt and the handler answer, then the replay and its answer, each linked to its delivery', async () => {
    const { transID, delivery } = await s2sWithDelivery();
    await attempt(delivery, 1, 200);
    const replay = await sb.post(`/_sandbox/deliveries/${delivery}/replay`, {});
    expect(replay.status, replay.text).toBe(201);
    await attempt(replay.json.id, 1, 200);
    const { html, arrows: shown } = await diagram(transID);
    expect(shown.slice(-4)).toEqual([
      'sandbox > handler: payment.authorized attempt 1',
      'handler > sandbox: HTTP 200',
      'sandbox > handler: payment.authorized attempt 1 (replay)',
      'handler > sandbox: HTTP 200',
    ]);
    expect(html).toContain(`href="/_sandbox/dashboard/deliveries/${delivery}#attempt-1"`);
    expect(html).toContain(`href="/_sandbox/dashboard/deliveries/${replay.json.id}#attempt-1"`);
    // The link lands on the attempt: the delivery page has that anchor.
    expect((await sb.get(`/_sandbox/dashboard/deliveries/${delivery}`)).text).toContain('id="attempt-1"');
  });

  it("a refused delivery: the handler's 401 drawn as a refusal, opening the signature check of what was sent", async () => {
    const { transID, delivery } = await s2sWithDelivery();
    await attempt(delivery, 1, 401);
    const { html, arrows: shown } = await diagram(transID);
    expect(shown.slice(-2)).toEqual(['sandbox > handler: payment.authorized attempt 1', 'handler > sandbox: HTTP 401']);
    expect(html).toContain('<span class="arrow answer left c3 s2 bad" data-from="handler" data-to="sandbox">');
    const step = html.split('<li class="step"').at(-1)!;
    expect(step).toMatch(/<dt>Signature check<\/dt><dd class="refusal" data-cause="valid"><code>valid<\/code>: signature valid/);
    expect(step).toContain('bad signature');
  });

  it('serves the diagram alone as the fragment the live script swaps in', async () => {
    const { transID } = await s2sWithDelivery();
    const fragment = await sb.get(`${pagePath(transID)}/fragment`);
    expect(fragment.status).toBe(200);
    expect(fragment.text).not.toContain('<html');
    expect(arrows(fragment.text)).toEqual((await diagram(transID)).arrows);
    expect((await diagram(transID)).html).toContain(`data-live-src="${pagePath(transID)}/fragment"`);
  });

  it('answers 404 with a page saying what the page takes, for an id that names no payment', async () => {
    const res = await sb.get(pagePath('pay_nothing'));
    expect(res.status).toBe(404);
    expect(res.headers.get('content-type')).toContain('text/html');
    expect(res.text).toContain('<h2>No payment pay_nothing</h2>');
    expect(res.text).toContain('give an S2S transID or a /v1/ payment id');
    expect(res.text).toContain('href="/_sandbox/?tab=transactions"');
    expect(res.text).toContain('href="/_sandbox/?tab=payments"');
    const markup = await sb.get(pagePath(encodeURIComponent('<b>x</b>')));
    expect(markup.status).toBe(404);
    expect(markup.text).toContain('No payment &lt;b&gt;x&lt;/b&gt;');
    expect((await sb.get(`${pagePath('pay_nothing')}/fragment`)).status).toBe(404);
  });

  it('shows what a request carried as text: a <script> in a journaled body is escaped', async () => {
    const hostile = '<script>alert("pwned")</script>';
    const pay = await sb.post(
      '/v1/payments',
      {
        amount: 1050,
        currency: 'EUR',
        card: card('4242424242424242'),
        reference: hostile,
        metadata: { note: '<img src=x onerror=alert(1)>' },
      },
      bearer,
    );
    expect(pay.status, pay.text).toBe(200);
    const { html } = await diagram(pay.json.id);
    expect(html).not.toContain('<script>alert');
    expect(html).not.toContain('<img src=x');
    expect(html).toContain('&lt;script&gt;alert(');
    expect([...html.matchAll(/<script[^>]*>/g)].map((m) => m[0])).toEqual(['<script src="/_sandbox/assets/dashboard.js" defer="">']);
  });
});

describe('every payment id of the dashboard links to its page', () => {
  it('in the S2S transactions, /v1/ payments, events, chargebacks and checkout sessions lists', async () => {
    const { transID } = await s2sWithDelivery();
    const pay = await sb.post('/v1/payments', { amount: 1000, currency: 'EUR', card: card('4242424242424242') }, bearer);
    const cb = await sb.post('/_sandbox/chargebacks', { payment_id: pay.json.id });
    expect(cb.status, cb.text).toBe(201);
    const link = (id: string) => `<a href="${pagePath(id)}">${id}</a>`;
    const list = async (query: string) => (await sb.get(`/_sandbox/?${query}`)).text;
    expect(await list('tab=transactions')).toContain(link(transID));
    expect(await list('tab=payments')).toContain(link(pay.json.id));
    expect(await list(`tab=events&q=${pay.json.id}`)).toContain(link(pay.json.id));
    expect(await list('tab=chargebacks')).toContain(link(pay.json.id));
    const session = await sb.post(
      '/v1/checkout/sessions',
      { amount: 990, currency: 'EUR', methods: ['card'], return_url: 'https://shop.example/r' },
      bearer,
    );
    expect(session.status, session.text).toBe(200);
    const events = await list(`tab=events&q=${session.json.id}`);
    // A session's id is not a payment's: shown, not linked.
    expect(events).not.toContain(`href="${pagePath(session.json.id)}"`);
  });
});
