// Times dashboard list pages at 100 000 rows in each listed table (docs/dashboard.md, "Speed"):
// fills a throw-away file database with rows written straight into the tables, then renders each
// page through the app (app.request: query + HTML, no socket) 20 times after 3 warm-ups.
// Usage: npm run build && node scripts/dashboard-timing.mjs [rows]
import { rmSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../dist/config.js';
import { buildSandbox } from '../dist/server/start-server.js';
import { fixedClock } from '../dist/runtime/clock.js';
import { silentLogger } from '../dist/runtime/logger.js';

const N = Number(process.argv[2] ?? 100_000);
const dir = mkdtempSync(join(tmpdir(), 'dashboard-timing-'));
const path = join(dir, 'sandbox.db');
const config = loadConfig({ db: path, publicUrl: 'http://127.0.0.1:4010', retry: 'none', quiet: true }, {});
const clock = fixedClock();
const { app, db } = buildSandbox(config, { clock, logger: silentLogger });
const t0 = Date.now();
const base = Date.UTC(2026, 0, 1);
db.transaction(() => {
  const tx = db.prepare(
    `INSERT INTO transactions (trans_id, merchant_id, ter_no, reference, amount, currency, mop, brand, ccno, order_status, response, product_name, webhook_url, return_url, customer, outcome, status_token, created_at, updated_at) VALUES (?, 'mer_sandbox', 1001, ?, 1050, 'EUR', 'CC', 'VISA', '424242XXXXXX4242', ?, 'ok', 'mug', 'http://127.0.0.1:9/h', 'http://127.0.0.1:9/r', '{}', '{}', ?, ?, ?)`,
  );
  const pay = db.prepare(
    `INSERT INTO payments (id, merchant_id, amount, currency, method, routing, acquirer, card_brand, card_last4, card_exp_month, card_exp_year, reference, capture, status, outcome, created_at, updated_at) VALUES (?, 'mer_sandbox', 1050, 'EUR', 'card', 'smart', 'best_available', 'visa', '4242', 12, 2030, ?, 1, ?, '{}', ?, ?)`,
  );
  const ses = db.prepare(
    `INSERT INTO checkout_sessions (id, merchant_id, token, csrf, status, amount, currency, methods, return_url, reference, expires_at, created_at, updated_at) VALUES (?, 'mer_sandbox', ?, 'x', ?, 1050, 'EUR', '["card"]', 'http://127.0.0.1:9/r', ?, ?, ?, ?)`,
  );
  const ev = db.prepare(
    `INSERT INTO events (id, merchant_id, type, resource_id, data, created_at) VALUES (?, 'mer_sandbox', ?, ?, '{}', ?)`,
  );
  const dl = db.prepare(
    `INSERT INTO deliveries (id, event_id, merchant_id, url, content_type, body, status, attempts, created_at, updated_at) VALUES (?, ?, 'mer_sandbox', 'http://127.0.0.1:9/h', 'application/json', '{}', ?, 1, ?, ?)`,
  );
  const codes = [25, 24, 0, 3, 22];
  const pst = ['authorized', 'captured', 'declined', 'requires_action'];
  const sst = ['complete', 'expired', 'open'];
  const types = ['payment.authorized', 'payment.declined', 'checkout.session.completed', 'refund.succeeded'];
  const dst = ['succeeded', 'failed', 'pending'];
  for (let i = 0; i < N; i++) {
    const at = base + i * 1000;
    const pad = String(i).padStart(6, '0');
    tx.run(`9${pad}00000000`, `ord_${pad}`, codes[i % 5], `st_${pad}`, at, at);
    pay.run(`pay_${pad}`, `ref_${pad}`, pst[i % 4], at, at);
    ses.run(`cs_${pad}`, `tok_${pad}`, sst[i % 3], `ref_${pad}`, at + 1800_000, at, at);
    ev.run(`evt_${pad}`, types[i % 4], `pay_${pad}`, at);
    dl.run(`whd_${pad}`, `evt_${pad}`, dst[i % 3], at, at);
  }
})();
console.log(`filled 5 x ${N} rows in ${Date.now() - t0} ms`);
db.pragma('optimize');
const cases = [
  ['transactions newest', '/_sandbox/?tab=transactions'],
  ['transactions status=24', '/_sandbox/?tab=transactions&status=24'],
  ['transactions search reference', '/_sandbox/?tab=transactions&q=ord_012345'],
  ['payments newest', '/_sandbox/?tab=payments'],
  ['payments status=declined', '/_sandbox/?tab=payments&status=declined'],
  ['payments search', '/_sandbox/?tab=payments&q=ref_000777'],
  ['sessions status=open, deep page', '/_sandbox/?tab=sessions&status=open&starting_after=cs_000300'],
  ['events type', '/_sandbox/?tab=events&type=refund.succeeded'],
  ['events search resource', '/_sandbox/?tab=events&q=pay_054321'],
  ['deliveries newest', '/_sandbox/?tab=deliveries'],
  ['deliveries status=failed', '/_sandbox/?tab=deliveries&status=failed'],
  ['deliveries type=payment.declined', '/_sandbox/?tab=deliveries&type=payment.declined'],
  ['deliveries type with no match (worst case)', '/_sandbox/?tab=deliveries&type=chargeback.lost'],
  [
    'transactions, a deep page (starting_after=)',
    `/_sandbox/?tab=transactions&starting_after=9${String(Math.floor(N / 20)).padStart(6, '0')}00000000`,
  ],
  ['deliveries deep', '/_sandbox/?tab=deliveries&starting_after=whd_000100'],
  ['fragment deliveries', '/_sandbox/dashboard/fragment?tab=deliveries'],
];
for (const [name, url] of cases) {
  for (let i = 0; i < 3; i++) {
    const r = await app.request(url);
    await r.text();
    if (r.status !== 200) throw new Error(`${name} ${r.status}`);
  }
  const times = [];
  for (let i = 0; i < 20; i++) {
    const s = performance.now();
    const r = await app.request(url);
    await r.text();
    times.push(performance.now() - s);
  }
  times.sort((a, b) => a - b);
  console.log(`${name.padEnd(44)} p50 ${times[10].toFixed(2)} ms  max ${times[19].toFixed(2)} ms`);
}
db.close();
rmSync(dir, { recursive: true, force: true });
