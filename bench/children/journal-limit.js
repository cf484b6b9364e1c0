// The request journal's cost in the least a server can do around it (bench/journal-limit.js runs
// it): POST /v1/payments on Hono with zod, the payment, its charge, its event and its outbox row
// written in a group commit shared by the event-loop turn, the webhook signed and POSTed from a
// sender thread, its answer recorded in the next commit. The design of ../limit/minimal.mjs's e2,
// the figure the sandbox is measured against for speed. Arguments: the ready file, the webhook
// URL, and the journal's design:
//   none     no journal
//   row      one masked row per request, built and written by the sandbox's own code (journal-row.js
//            masks it and reads its ids, journal-repo.js inserts it into the table of the sandbox's
//            migration), in the turn's group commit with the request's own rows, on the thread that
//            answered (no handoff), the bound kept by a DELETE past its size
//   segment  the same masked entries, written as one row per event-loop turn (a JSON array):
//            one INSERT a turn, whatever the number of requests
//   unmasked a row per request as `row`, nothing masked and no ids read (what no journal may do:
//            it would keep the card number and CVV): the cost of keeping a request, masking aside
import { createHmac, randomUUID } from 'node:crypto';
import http from 'node:http';
import { readFileSync, writeFileSync } from 'node:fs';
import { isMainThread, MessageChannel, Worker, workerData } from 'node:worker_threads';
import Database from 'better-sqlite3';
import { Hono } from 'hono';
import { serve } from '@hono/node-server';
import { z } from 'zod';
import { journalRow } from '../../dist/services/journal/journal-row.js';
import { createJournalRepo } from '../../dist/store/journal-repo.js';

const JOURNAL_SIZE = 10_000;

if (!isMainThread) {
  // The sender thread: signs each webhook, POSTs it over keep-alive, hands back [outbox id, status].
  const { port, hook } = workerData;
  const target = new URL(hook);
  const agent = new http.Agent({ keepAlive: true, maxSockets: 8 });
  const answers = [];
  port.on('message', (jobs) => {
    for (const job of jobs) {
      const t = Math.floor(Date.now() / 1000);
      const signature = createHmac('sha256', 'whsec_test_sandbox').update(`${t}.${job.body}`).digest('hex');
      const headers = {
        'content-type': 'application/json',
        'content-length': Buffer.byteLength(job.body),
        'x-signature': `t=${t},v1=${signature}`,
      };
      const request = http.request(
        { host: target.hostname, port: target.port, path: target.pathname, method: 'POST', agent, headers },
        (res) => {
          res.resume();
          res.on('end', () => {
            if (answers.length === 0) setImmediate(() => port.postMessage(answers.splice(0)));
            answers.push([job.id, res.statusCode]);
          });
        },
      );
      request.on('error', () => {});
      request.end(job.body);
    }
  });
} else {
  const [readyFile, hook, design, dbPath] = process.argv.slice(2);
  const db = new Database(dbPath);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.exec(`CREATE TABLE payments (id TEXT PRIMARY KEY, merchant INTEGER, amount INTEGER, currency TEXT, status TEXT, last4 TEXT, created TEXT, body TEXT);
    CREATE INDEX p_m ON payments(merchant, created); CREATE INDEX p_s ON payments(status);
    CREATE TABLE charges (id TEXT PRIMARY KEY, payment TEXT, amount INTEGER, outcome TEXT, created TEXT);
    CREATE INDEX c_p ON charges(payment);
    CREATE TABLE events (seq INTEGER PRIMARY KEY, id TEXT UNIQUE, type TEXT, object TEXT, payload TEXT, created TEXT);
    CREATE TABLE outbox (id INTEGER PRIMARY KEY, event TEXT, url TEXT, status TEXT, attempts INTEGER, due INTEGER, last_status INTEGER);
    CREATE INDEX o_due ON outbox(status, due);
    CREATE TABLE journal_segments (seq INTEGER PRIMARY KEY, first_at INTEGER NOT NULL, entries TEXT NOT NULL);`);
  // The sandbox's own journal and trace tables, as its migrations make them (with the columns they add to events).
  for (const migration of ['021-request-journal.sql', '022-event-traces.sql'])
    db.exec(readFileSync(new URL(`../../src/store/migrations/${migration}`, import.meta.url), 'utf8'));
  const journalRepo = createJournalRepo(db);
  const insertPayment = db.prepare('INSERT INTO payments VALUES (?,?,?,?,?,?,?,?)');
  const insertCharge = db.prepare('INSERT INTO charges VALUES (?,?,?,?,?)');
  const insertEvent = db.prepare('INSERT INTO events (id,type,object,payload,created) VALUES (?,?,?,?,?)');
  const insertOutbox = db.prepare("INSERT INTO outbox (event,url,status,attempts,due) VALUES (?,?,'pending',0,?)");
  const recordAnswer = db.prepare("UPDATE outbox SET status='delivered', attempts=attempts+1, last_status=? WHERE id=?");
  const insertSegment = db.prepare('INSERT INTO journal_segments (first_at, entries) VALUES (?, ?)');
  const dropSegments = db.prepare('DELETE FROM journal_segments WHERE seq <= ?');

  const { port1, port2 } = new MessageChannel();
  const sender = new Worker(new URL(import.meta.url), { workerData: { port: port2, hook }, transferList: [port2] });
  sender.unref();
  port1.on('message', (answers) => {
    db.exec('BEGIN');
    for (const [id, status] of answers) recordAnswer.run(status, id);
    db.exec('COMMIT');
  });

  // The turn's work: creates (answered after the commit), journal entries, webhooks to hand over.
  let creates = [];
  let entries = [];
  const jobs = [];
  let segments = 0;
  const commitTurn = () => {
    const batch = creates;
    const journal = entries;
    creates = [];
    entries = [];
    db.exec('BEGIN');
    for (const item of batch) {
      const r = item.payment;
      insertPayment.run(r.id, 1001, r.amount, r.currency, 'succeeded', r.last4, r.created, r.json);
      insertCharge.run(`ch_${r.id.slice(4)}`, r.id, r.amount, 'approved', r.created);
      insertEvent.run(`evt_${r.id.slice(4)}`, 'payment.succeeded', r.id, r.json, r.created);
      r.outbox = insertOutbox.run(`evt_${r.id.slice(4)}`, hook, Date.now()).lastInsertRowid;
    }
    if ((design === 'row' || design === 'unmasked') && journal.length > 0) {
      let last = 0;
      for (const row of journal) last = journalRepo.insert(row);
      if (last > JOURNAL_SIZE) journalRepo.dropUpTo(last - JOURNAL_SIZE);
    }
    if (design === 'segment' && journal.length > 0) {
      const seq = Number(insertSegment.run(journal[0].wallAt, JSON.stringify(journal)).lastInsertRowid);
      // Segments hold a turn's requests each: the bound drops the oldest segments past its size.
      segments += journal.length;
      if (segments > JOURNAL_SIZE * 1.1) {
        dropSegments.run(seq - Math.ceil((seq * JOURNAL_SIZE) / segments));
        segments = JOURNAL_SIZE;
      }
    }
    db.exec('COMMIT');
    for (const item of batch) {
      const r = item.payment;
      const body = JSON.stringify({ id: `evt_${r.id.slice(4)}`, type: 'payment.succeeded', created: r.created, data: { object: r.obj } });
      if (jobs.length === 0) setImmediate(() => port1.postMessage(jobs.splice(0)));
      jobs.push({ id: r.outbox, body });
      item.done();
    }
  };
  const queue = (kind, value) => {
    if (creates.length === 0 && entries.length === 0) setImmediate(commitTurn);
    kind.push(value);
  };

  const Body = z
    .object({
      amount: z.number().int().positive().max(99999999),
      currency: z.string().regex(/^[A-Z]{3}$/),
      description: z.string().max(500).optional(),
      card: z
        .object({ number: z.string().regex(/^\d{12,19}$/), exp_month: z.number().int(), exp_year: z.number().int(), cvc: z.string() })
        .strict(),
    })
    .strict();

  const app = new Hono();
  if (design !== 'none')
    app.use(async (c, next) => {
      const started = performance.now();
      const wallAt = Date.now();
      const text = await c.req.text();
      await next();
      // The answer's text: the route below answers a string, so reading it back costs no serialising.
      const answer = c.get('answerText') ?? null;
      const url = c.req.url;
      const q = url.indexOf('?');
      const record = {
        id: randomUUID(),
        merchantId: 'mer_1001',
        surface: 'api',
        method: c.req.method,
        path: c.req.path,
        query: q < 0 ? '' : url.slice(q + 1),
        status: c.res.status,
        durationMs: performance.now() - started,
        startedAt: wallAt,
        endedAt: Date.now(),
        wallAt,
        idempotencyKey: c.req.header('idempotency-key') ?? null,
        headers: c.req.raw.headers,
        requestBody: text,
        responseType: 'application/json',
        responseBody: answer,
        fault: null,
        script: null,
      };
      // The sandbox's row (masked, its ids read), or the same fields kept as they came.
      const { headers, ...kept } = record;
      const row =
        design === 'unmasked' ? { ...kept, requestHeaders: Object.fromEntries(headers), ids: [], traceparent: null } : journalRow(record);
      queue(entries, row);
    });
  app.post('/v1/payments', async (c) => {
    const parsed = Body.safeParse(await c.req.json());
    if (!parsed.success) return c.json({ error: parsed.error.issues }, 400);
    const b = parsed.data;
    const id = `pay_${randomUUID().replace(/-/g, '').slice(0, 16)}`;
    const created = new Date().toISOString();
    const obj = {
      id,
      object: 'payment',
      amount: b.amount,
      currency: b.currency,
      status: 'succeeded',
      card: { brand: 'visa', last4: b.card.number.slice(-4), exp_month: b.card.exp_month, exp_year: b.card.exp_year },
      description: b.description ?? null,
      created,
    };
    const payment = { id, amount: b.amount, currency: b.currency, last4: obj.card.last4, created, obj, json: JSON.stringify(obj) };
    await new Promise((done) => queue(creates, { payment, done }));
    c.set('answerText', payment.json);
    return c.body(payment.json, 200, { 'content-type': 'application/json' });
  });
  const server = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, (info) => {
    writeFileSync(readyFile, `http://127.0.0.1:${info.port}`);
  });
  process.on('SIGTERM', () => {
    server.close();
    db.close();
    process.exit(0);
  });
}
