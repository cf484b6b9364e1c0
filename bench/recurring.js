// A year of subscriptions (issue 33): 1 000 saved cards (20 in quick mode) renewed monthly by the
// merchant's own scheduler, as docs/recurring.md describes: jump the sandbox clock a month (POST
// /_sandbox/clock/advance with the report, waiting for the first attempt of every webhook the jump
// caused), charge every token with initiator "merchant", retry the declines whose advice_code says
// try_again_later 3 days later, drop the cards whose advice says update_card; 365 days in all.
// Every token is scripted to decline insufficient_funds at its fourth renewal; one card in ten
// expires in the third month (test card 4000000000000077) and one in ten is renewed by its issuer
// (4000000000000176), so the jumps run token.expiring, renewals and settlement payouts. Its time is
// shown against as many plain creates (POST /v1/payments with tok_visa and the same webhook), half
// measured right before the year and half right after, on the same sandbox. A run of charges or
// creates counts until the webhooks it caused are delivered, so a jump waits for its own only.
import { pool, request } from './lib/http.js';
import { startSandbox, tempPath } from './lib/processes.js';
import { jsonHeaders } from './lib/bodies.js';

const LANES = 10;
const MONTHS = 12;
const RETRY_DAYS = 3;
/** The card each customer subscribes with: one in ten expires soon, one in ten is renewed by its issuer. */
const cardOf = (i) => (i % 10 === 0 ? '4000000000000077' : i % 10 === 1 ? '4000000000000176' : '4242424242424242');

/** Runs the year; a request that does not answer as it should, or a webhook left undelivered, is a problem. */
export async function benchRecurring(ctx) {
  const { report, quick, receiver } = ctx;
  // Quick mode: 20, still two cards that expire and two renewed by their issuer.
  const tokens = quick ? 20 : 1000;
  const sandbox = await startSandbox({ db: tempPath('recurring', '.db') });
  const headers = jsonHeaders(true);
  const webhookUrl = `${receiver.url}/recurring`;
  const post = async (path, body, expected = 200) => {
    const res = await request(`${sandbox.url}${path}`, { method: 'POST', headers, body, timeoutMs: 60_000 });
    if (res.status !== expected) throw new Error(`POST ${path} answered ${res.status}: ${res.text.slice(0, 300)}`);
    return res.json;
  };
  /** Resolves once no webhook waits in the outbox: a run of requests counts until its webhooks are delivered. */
  const drained = async () => {
    const deadline = Date.now() + 120_000;
    for (;;) {
      const pending = await request(`${sandbox.url}/_sandbox/deliveries?status=pending&limit=1`);
      if (pending.json?.data?.length === 0) return;
      if (Date.now() > deadline) throw new Error('webhooks still pending after 120 s');
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  };
  try {
    // The customers subscribe: the first, customer-initiated payment stores each card.
    const firsts = await pool(tokens, LANES, (i) =>
      post('/v1/payments', {
        amount: 999,
        currency: 'EUR',
        card: { number: cardOf(i), exp_month: 12, exp_year: 2040, cvc: '123' },
        setup_future_usage: 'off_session',
        webhook_url: webhookUrl,
      }),
    );
    const saved = firsts.map((payment) => payment.token);
    await pool(tokens, LANES, (i) =>
      post(`/_sandbox/tokens/${saved[i]}/outcomes`, { outcomes: ['approve', 'approve', 'approve', 'insufficient_funds'] }),
    );

    // A plain create: customer-initiated, a predefined token, the same amount and webhook.
    const plainCreates = async (count) => {
      const t0 = performance.now();
      await pool(count, LANES, () => post('/v1/payments', { amount: 999, currency: 'EUR', token: 'tok_visa', webhook_url: webhookUrl }));
      await drained();
      return performance.now() - t0;
    };
    const baselineCount = Math.round((tokens * MONTHS) / 2);
    await drained();
    const beforeMs = await plainCreates(baselineCount);

    const year = { jumps: 0, jumpMs: 0, jobs: 0, events: 0, charges: 0, chargeMs: 0, retried: 0, dropped: 0, days: 0 };
    const jump = async (days) => {
      const t0 = performance.now();
      const answer = await post('/_sandbox/clock/advance', { duration: `${days}d`, wait: '30s' });
      year.jumpMs += performance.now() - t0;
      year.jumps += 1;
      year.days += days;
      year.jobs += answer.jobs_run;
      year.events += answer.report.events;
      if (answer.report.failed + answer.report.unanswered > 0)
        throw new Error(`a ${days}d jump: ${answer.report.failed} deliveries failed, ${answer.report.unanswered} unanswered`);
    };
    const charge = async (list, month) => {
      const t0 = performance.now();
      const answers = await pool(list.length, LANES, (i) =>
        post('/v1/payments', {
          amount: 999,
          currency: 'EUR',
          token: list[i],
          initiator: 'merchant',
          reference: `sub-${i}-${month}`,
          webhook_url: webhookUrl,
        }),
      );
      await drained();
      year.chargeMs += performance.now() - t0;
      year.charges += list.length;
      return answers;
    };
    const started = performance.now();
    let active = saved;
    for (let month = 1; month <= MONTHS; month++) {
      await jump(30);
      const answers = await charge(active, month);
      const retry = active.filter((_, i) => answers[i].advice_code === 'try_again_later');
      // update_card or do_not_try_again: the merchant stops charging that card and asks its customer.
      const keep = new Set(active.filter((_, i) => answers[i].status !== 'declined' || answers[i].advice_code === 'try_again_later'));
      year.dropped += active.length - keep.size;
      active = active.filter((token) => keep.has(token));
      if (retry.length > 0) {
        await jump(RETRY_DAYS);
        const again = await charge(retry, `${month}-retry`);
        year.retried += retry.length;
        const still = again.filter((payment) => payment.status === 'declined').length;
        if (still > 0) throw new Error(`${still} of ${retry.length} retried renewals declined again`);
      }
      // The merchant settles every month; the next jump pays it out (settlement.pay).
      await post('/_sandbox/settlements', { pay_after: '2d' });
    }
    await jump(365 - year.days);
    const yearMs = performance.now() - started;
    const afterMs = await plainCreates(baselineCount);

    // Every webhook the year owed went out.
    await drained();
    const failed = await request(`${sandbox.url}/_sandbox/deliveries?status=failed&limit=1`);
    if (failed.json?.data?.length !== 0) report.problem(`recurring: a webhook failed: ${failed.text.slice(0, 300)}`);

    // The same number of plain creates as there were charges, at the rate measured around the year.
    const plainMs = ((beforeMs + afterMs) / (2 * baselineCount)) * year.charges;
    const s = (ms) => (ms / 1000).toFixed(2);
    const n = tokens.toLocaleString('en-US').replace(/,/g, ' ');
    report.measure({
      group: 'recurring',
      name: `clock advance 365d over ${n} tokens with scripted renewals (${year.jumps} jumps, the merchant charging every token after each)`,
      figure:
        `${s(yearMs)} s: ${year.jumps} jumps ${s(year.jumpMs)} s (${year.jobs} jobs, ${year.events} events, each webhook's first attempt waited for), ` +
        `${year.charges} charges ${s(year.chargeMs)} s (${year.retried} declined and retried ${RETRY_DAYS} days later, ${year.dropped} expired cards dropped); ` +
        `${(yearMs / plainMs).toFixed(2)}x the time of ${year.charges} plain creates (${s(plainMs)} s at the rate of ${baselineCount} before / after: ${s(beforeMs)} / ${s(afterMs)} s)`,
    });
  } finally {
    await sandbox.stop();
  }
}
