// The limit servers of minimal.mjs (the limit folder's deliberately small servers with one SQLite
// writer), writing what the sandbox writes: its own database (opened by the build's openDatabase():
// its pragmas, every migration, so every index and foreign key) and, per request, its rows, masked
// as its journal masks them. No middleware, idempotency, credential lookup or state machine: what
// these reach is the most the sandbox's data allows on this machine, whatever the code around it.
// Run from the project root after `npm run build`; bench/peer.js runs them beside stripe-mock.
//   MODE=cs   one thread: Hono + zod, then a create's rows (a payment, two events, a journal row
//             with masked headers and bodies) in a group commit per turn; answers after the commit.
//   MODE=ds   the same rows; HTTP, zod, the answer and the journal row built on a front thread,
//             the main thread only inserts (group commit per turn), batches over a MessagePort.
//   MODE=e2s  like cs, a charge's rows (a transaction, an event, a delivery, a journal row), its
//             webhook signed and POSTed by a sender thread, the attempt recorded (an attempt row and
//             the delivery's update, in the group commit of the turn they come in).
//   MODE=d2s  e2s's rows and sender with ds's front thread: front + writer + sender.
// Same request as minimal.mjs (POST /v1/payments, the LIMIT_CREATE body).
import { createRequire } from 'node:module';
import { Worker, isMainThread, workerData, MessageChannel } from 'node:worker_threads';
import { randomBytes, createHmac } from 'node:crypto';
import http from 'node:http';
import fs from 'node:fs';

const require = createRequire(`${process.cwd()}/package.json`);
const MODE = process.env.MODE || 'cs';
const PORT = Number(process.env.PORT || 4820);
const DB = process.env.DB || `/tmp/limit-db/rows-${MODE}-${PORT}.db`;
const CHARGE = MODE === 'e2s' || MODE === 'd2s';
const FRONT = MODE === 'ds' || MODE === 'd2s';
// Knobs for measuring one part's cost: JOURNAL=0 writes no journal row; LEAN=1 drops the indexes
// only the control API's lists across merchants read (each table keeps its merchant-scoped ones).
const LEAN = process.env.LEAN === '1';
const JOURNAL = process.env.JOURNAL !== '0';

const { masked, maskedHeaders } = await import(`${process.cwd()}/dist/domain/journal-mask.js`);
const { openDatabase } = await import(`${process.cwd()}/dist/store/open-database.js`);

const B62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
let pool = randomBytes(0);
let at = 0;
function rand62(n) {
  if (at + n > pool.length) {
    pool = randomBytes(4096);
    at = 0;
  }
  let s = '';
  for (let i = 0; i < n; i++) s += B62[pool[at++] % 62];
  return s;
}
function fixed(v, w) {
  let s = '';
  for (let i = 0; i < w; i++) {
    s = B62[v % 62] + s;
    v = Math.floor(v / 62);
  }
  return s;
}
const newId = (p) => `${p}_${fixed(Date.now(), 8)}${rand62(8)}`;
let lastTrans = 0;
const newTransId = () => {
  lastTrans = Math.max(lastTrans + 1, Date.now() * 100);
  return String(lastTrans);
};

/** What the HTTP side makes of a create: the rows (plain values) and the answer text. */
function buildCreate(b, headers, rawBody, startedAt) {
  const now = Date.now();
  const requestId = newId('req');
  if (CHARGE) {
    const transId = newTransId();
    const last4 = b.card.number.slice(-4);
    const ccno = `${b.card.number.slice(0, 6)}XXXXXX${last4}`;
    const answer = JSON.stringify({
      transID: transId,
      reference: null,
      order_status: '25',
      status: 'Test Approved',
      response: 'Transaction approved (test mode)',
      bill_amt: (b.amount / 100).toFixed(2),
      bill_currency: b.currency,
      mop: 'VISA',
      ccno,
      tdate: new Date(now).toISOString().replace('T', ' ').replace('Z', '000'),
      authurl: '',
      authstatus: `http://127.0.0.1/api/s2s/status/${rand62(43)}`,
      authdata: '',
    });
    const eventId = newId('evt');
    const eventData = JSON.stringify({
      bill_currency: b.currency,
      transID: transId,
      mop: 'VISA',
      ccno,
      reference: null,
      order_status: '25',
      bill_amt: (b.amount / 100).toFixed(2),
      status: 'Test Approved',
      response: 'Transaction approved (test mode)',
    });
    const body = new URLSearchParams(JSON.parse(eventData)).toString();
    return {
      answer,
      tx: [
        transId,
        'mer_sandbox',
        1001,
        `ref-${requestId}`,
        b.amount,
        b.currency,
        'CC',
        'VISA',
        ccno,
        25,
        'Transaction approved (test mode)',
        b.description ?? 'mug',
        process.env.HOOK ?? null,
        'http://127.0.0.1:9/return',
        '127.0.0.1',
        JSON.stringify({ fullname: 'Bench Customer' }),
        'none',
        '{"refundFails":false,"chargeback":false,"challenge":false,"authorisation":{"result":"approve"}}',
        rand62(43),
        0,
        now,
        now,
      ],
      event: [eventId, 'mer_sandbox', 'payment.authorized', transId, eventData, now, '', null, null],
      delivery: [
        newId('whd'),
        eventId,
        'mer_sandbox',
        process.env.HOOK ?? 'http://127.0.0.1:9/h',
        null,
        'application/x-www-form-urlencoded',
        body,
        0,
        now,
        now + 15000,
        now,
        now,
      ],
      journal: journalRow(requestId, '/v1/payments', headers, rawBody, answer, ` ${transId} `, startedAt),
    };
  }
  const id = newId('pay');
  const payment = {
    id,
    merchantId: 'mer_sandbox',
    amount: b.amount,
    currency: b.currency,
    method: 'card',
    routing: 'smart',
    acquirer: 'best_available',
    customer: JSON.stringify({ country: 'NL' }),
    instrumentLabel: 'VISA',
    cardLast4: b.card.number.slice(-4),
    cardExpMonth: b.card.exp_month,
    cardExpYear: b.card.exp_year,
    token: null,
    reference: null,
    description: b.description ?? null,
    metadata: JSON.stringify(b.metadata ?? {}),
    capture: 1,
    amountCaptured: b.amount,
    amountRefunded: 0,
    status: 'captured',
    declineCode: null,
    failureMessage: null,
    initiator: 'customer',
    setupFutureUsage: null,
    adviceCode: null,
    returnReason: null,
    webhookUrl: null,
    returnUrl: 'http://127.0.0.1:9/return',
    script: '{"authorisation":{"result":"approve"}}',
    createdAt: now,
    updatedAt: now,
  };
  const view = {
    id,
    object: 'payment',
    status: 'authorized',
    amount: b.amount,
    currency: b.currency,
    method: 'card',
    routing: 'smart',
    acquirer: 'best_available',
    capture: true,
    amount_captured: 0,
    amount_refunded: 0,
    reference: null,
    description: payment.description,
    metadata: b.metadata ?? {},
    customer: { country: 'NL' },
    card: { brand: 'visa', last4: payment.cardLast4, exp_month: payment.cardExpMonth, exp_year: payment.cardExpYear },
    token: null,
    decline_code: null,
    failure_message: null,
    advice_code: null,
    initiator: 'customer',
    setup_future_usage: null,
    next_action: null,
    return_url: payment.returnUrl,
    webhook_url: null,
    created: Math.floor(now / 1000),
    updated: Math.floor(now / 1000),
    livemode: false,
  };
  const answer = JSON.stringify(view);
  const ev = (type, captured) => [
    newId('evt'),
    'mer_sandbox',
    type,
    id,
    JSON.stringify({
      payment_id: id,
      status: type.slice(8),
      amount: b.amount,
      currency: b.currency,
      reference: null,
      amount_captured: captured,
      amount_refunded: 0,
      metadata: b.metadata ?? {},
    }),
    now,
    '',
    null,
    null,
  ];
  return {
    answer,
    payment,
    events: [ev('payment.authorized', 0), ev('payment.captured', b.amount)],
    journal: journalRow(requestId, '/v1/payments', headers, rawBody, answer, ` ${id} `, startedAt),
  };
}

function journalRow(id, path, headers, rawBody, answer, ids, startedAt) {
  if (!JOURNAL) return null;
  const ended = Date.now();
  return [
    id,
    'mer_sandbox',
    'api',
    'POST',
    path,
    '',
    200,
    performance.now() - startedAt,
    ended,
    ended,
    ended,
    null,
    JSON.stringify(maskedHeaders(Object.entries(headers))),
    masked(rawBody),
    'application/json',
    masked(answer),
    ids,
    null,
    null,
    null,
  ];
}

function openDb() {
  for (const p of [DB, `${DB}-wal`, `${DB}-shm`]) fs.rmSync(p, { force: true });
  // The sandbox's own opening: its pragmas and every migration (so every index and foreign key).
  const db = openDatabase(DB);
  db.prepare("INSERT INTO merchants (id, name, webhook_secret) VALUES ('mer_sandbox', 'Sandbox Merchant', 'whsec_test_sandbox')").run();
  if (LEAN)
    for (const index of [
      'payments_created',
      'payments_status_created',
      'events_created',
      'events_type_created',
      'transactions_created',
      'transactions_status_created',
      'deliveries_created',
      'deliveries_status_created',
    ])
      db.exec(`DROP INDEX ${index}`);
  db.prepare(
    "INSERT INTO terminals (ter_no, merchant_id, public_key, private_key) VALUES (1001, 'mer_sandbox', 'pk_test_1001', 'pv_test_1001')",
  ).run();
  const insPayment =
    db.prepare(`INSERT INTO payments (id, merchant_id, amount, currency, method, routing, acquirer, customer, card_brand, card_last4, card_exp_month, card_exp_year, token, reference, description, metadata, capture, amount_captured, amount_refunded,
    status, decline_code, failure_message, initiator, setup_future_usage, advice_code, return_reason, webhook_url, return_url, outcome,
    created_at, updated_at) VALUES (@id, @merchantId, @amount, @currency, @method, @routing, @acquirer, @customer, @instrumentLabel,
    @cardLast4, @cardExpMonth, @cardExpYear, @token, @reference, @description, @metadata, @capture, @amountCaptured, @amountRefunded,
    @status, @declineCode, @failureMessage, @initiator, @setupFutureUsage, @adviceCode, @returnReason, @webhookUrl, @returnUrl, @script,
    @createdAt, @updatedAt)`);
  const insEvent = db.prepare(
    'INSERT INTO events (id, merchant_id, type, resource_id, data, created_at, request_id, trace_parent, trace_state) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)',
  );
  const insJournal = db.prepare(
    'INSERT INTO request_journal (id, merchant_id, surface, method, path, query, status, duration_ms, started_at, ended_at, wall_at, idempotency_key, request_headers, request_body, response_type, response_body, ids, traceparent, fault, script) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
  );
  const insTx = db.prepare(
    'INSERT INTO transactions (trans_id, merchant_id, ter_no, reference, amount, currency, mop, brand, ccno, order_status, response, product_name, webhook_url, return_url, bill_ip, customer, encryption_method, outcome, status_token, refunded, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
  );
  const insDelivery = db.prepare(
    "INSERT INTO deliveries (id, event_id, merchant_id, url, endpoint_id, content_type, body, status, manual, attempts, next_attempt_at, lease_until, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, 'pending', ?, 0, ?, ?, ?, ?)",
  );
  const insAttempt = db.prepare(
    'INSERT INTO delivery_attempts (delivery_id, attempt, started_at, request_headers, request_body, response_status, response_headers, response_body, latency_ms, error_kind, error_message, fault) VALUES (?, 1, ?, ?, ?, ?, ?, ?, ?, NULL, NULL, NULL)',
  );
  const updDelivery = db.prepare(
    "UPDATE deliveries SET status = 'succeeded', attempts = 1, next_attempt_at = NULL, lease_until = NULL, last_status = ?, last_error = NULL, updated_at = ? WHERE id = ?",
  );
  const traces = db.prepare('SELECT 1 FROM object_traces LIMIT 1');
  const write = (r) => {
    if (r.answers) return record(r.answers);
    if (r.tx) {
      insTx.run(r.tx);
      traces.get();
      insEvent.run(r.event);
      insDelivery.run(r.delivery);
    } else {
      traces.get();
      insEvent.run(r.events[0]);
      traces.get();
      insEvent.run(r.events[1]);
      insPayment.run(r.payment);
    }
    if (JOURNAL) insJournal.run(r.journal);
  };
  /** The sender's answers: an attempt row and the delivery's update each, as one unit of the turn's batch. */
  const record = (answers) => {
    for (const a of answers) {
      insAttempt.run(a.id, a.startedAt, a.headers, a.body, a.status, a.responseHeaders, 'ok', a.latency);
      updDelivery.run(a.status, Date.now(), a.id);
    }
  };
  return { db, write };
}

/**
 * The writes of one turn share one BEGIN IMMEDIATE ... COMMIT (SAVEPOINT per unit, as the sandbox
 * runs them), each a prepared statement as in the sandbox (exec() parses its text every time): one
 * sitting of 6 rounds gave 2 753 -> 3 058 req/s, but 8 rounds beside stripe-mock gave the same
 * median as before (1.12) with the main thread at 286 µs a create against 294, so within the noise.
 */
function groupCommitter(d) {
  const [begin, savepoint, release, rollbackTo, commit] = ['BEGIN IMMEDIATE', 'SAVEPOINT u', 'RELEASE u', 'ROLLBACK TO u', 'COMMIT'].map(
    (sql) => d.db.prepare(sql),
  );
  let q = [];
  const flush = () => {
    const batch = q;
    q = [];
    begin.run();
    try {
      for (const it of batch) {
        savepoint.run();
        try {
          d.write(it.r);
          release.run();
        } catch (e) {
          rollbackTo.run();
          release.run();
          it.err = e;
        }
      }
      commit.run();
    } catch (e) {
      try {
        d.db.exec('ROLLBACK');
      } catch {}
      for (const it of batch) it.err = e;
    }
    for (const it of batch) it.done();
  };
  return (r) =>
    new Promise((res, rej) => {
      if (!q.length) setImmediate(flush);
      q.push({
        r,
        done() {
          this.err ? rej(this.err) : res();
        },
      });
    });
}

/** The sender: signs and POSTs each webhook, answers what the receiver said, batched per turn. */
function senderLoop(port) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });
  let out = [];
  port.on('message', (jobs) => {
    for (const j of jobs) {
      const hook = new URL(j.url);
      const t = Math.floor(Date.now() / 1000);
      const sig = createHmac('sha256', 'whsec_test_sandbox').update(j.body).digest('hex');
      const headers = {
        'content-type': 'application/x-www-form-urlencoded',
        'user-agent': 'paysandbox/0.1.0',
        'x-sandbox-signature': `sha256=${sig}`,
        'x-sandbox-event-id': j.eventId,
        'x-sandbox-event-type': 'payment.authorized',
        'x-sandbox-delivery-id': j.id,
        'x-sandbox-attempt': '1',
        'x-sandbox-timestamp': String(t),
      };
      const startedAt = Date.now();
      const q = http.request(
        {
          host: hook.hostname,
          port: hook.port,
          path: hook.pathname,
          method: 'POST',
          agent,
          headers: { ...headers, 'content-length': Buffer.byteLength(j.body) },
        },
        (res) => {
          res.resume();
          res.on('end', () => {
            if (!out.length)
              setImmediate(() => {
                const b = out;
                out = [];
                port.postMessage(b);
              });
            out.push({
              id: j.id,
              startedAt,
              headers: JSON.stringify(headers),
              body: j.body,
              status: res.statusCode,
              responseHeaders: JSON.stringify(res.headers),
              latency: Date.now() - startedAt,
            });
          });
        },
      );
      q.on('error', () => {});
      q.end(j.body);
    }
  });
}

/** This file again on a worker thread in `role` (sender or front); the main thread's end of its port. */
function startThread(role) {
  const { port1, port2 } = new MessageChannel();
  const worker = new Worker(new URL(import.meta.url), {
    workerData: { [role]: true, port: port2 },
    transferList: [port2],
    env: { ...process.env },
  });
  worker.on('error', (e) => {
    console.error(e);
    process.exit(1);
  });
  return port1;
}

/** The webhook side of the writer: jobs to the sender after the commit, its answers recorded. */
function startSender(commit) {
  const port1 = startThread('sender');
  // Recorded in the group commit with the turn's other writes, not in a commit of their own.
  port1.on('message', (answers) => void commit({ answers }).catch((err) => console.error(err)));
  let jobs = [];
  return (r) => {
    if (!jobs.length)
      setImmediate(() => {
        const b = jobs;
        jobs = [];
        port1.postMessage(b);
      });
    jobs.push({ id: r.delivery[0], eventId: r.event[0], url: r.delivery[3], body: r.delivery[6] });
  };
}

const schema = () => {
  const { z } = require('zod');
  return z
    .object({
      amount: z.number().int().positive().max(99999999),
      currency: z.string().regex(/^[A-Z]{3}$/),
      description: z.string().max(500).optional(),
      metadata: z.record(z.string()).optional(),
      card: z
        .object({
          number: z.string().regex(/^\d{12,19}$/),
          exp_month: z.number().int().min(1).max(12),
          exp_year: z.number().int().min(2000).max(2100),
          cvc: z.string().regex(/^\d{3,4}$/),
        })
        .strict(),
    })
    .strict();
};

/** The HTTP side: Hono and zod; `handle(rows)` resolves once the rows are committed. */
function serveHttp(handle, port) {
  const { Hono } = require('hono');
  const { serve } = require('@hono/node-server');
  const Body = schema();
  const app = new Hono();
  app.post('/v1/payments', async (c) => {
    const startedAt = performance.now();
    const raw = await c.req.text();
    let json;
    try {
      json = JSON.parse(raw);
    } catch {
      return c.json({ error: 'invalid JSON' }, 400);
    }
    const parsed = Body.safeParse(json);
    if (!parsed.success) return c.json({ error: parsed.error.issues }, 400);
    const r = buildCreate(parsed.data, Object.fromEntries(c.req.raw.headers), raw, startedAt);
    await handle(r);
    return c.body(r.answer, 200, { 'content-type': 'application/json' });
  });
  serve({ fetch: app.fetch, port, hostname: '127.0.0.1' });
}

if (!isMainThread && workerData.sender) senderLoop(workerData.port);
else if (!isMainThread && workerData.front) {
  const port = workerData.port;
  const waiting = new Map();
  let k = 0;
  let out = [];
  port.on('message', (ks) => {
    for (const [key, err] of ks) {
      const f = waiting.get(key);
      waiting.delete(key);
      f(err);
    }
  });
  serveHttp(
    (r) =>
      new Promise((res, rej) => {
        r.k = ++k;
        waiting.set(r.k, (err) => (err ? rej(new Error(err)) : res()));
        if (!out.length)
          setImmediate(() => {
            const b = out;
            out = [];
            port.postMessage(b.map(({ answer, ...rows }) => rows));
          });
        out.push(r);
      }),
    PORT,
  );
} else {
  const d = openDb();
  const commit = groupCommitter(d);
  const send = CHARGE ? startSender(commit) : null;
  const handle = async (r) => {
    await commit(r);
    if (send) send(r);
  };
  if (FRONT) {
    const port1 = startThread('front');
    port1.on('message', async (batch) => {
      const done = await Promise.all(
        batch.map((r) =>
          handle(r).then(
            () => [r.k, null],
            (e) => [r.k, String(e)],
          ),
        ),
      );
      port1.postMessage(done);
    });
  } else serveHttp(handle, PORT);
  process.on('SIGTERM', () => process.exit(0));
}
