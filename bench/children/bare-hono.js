// The baseline: a bare Hono app on @hono/node-server, in its own process like the sandbox under
// test. POST / parses a JSON body and answers a small JSON object: the request work every create
// does before its own logic (the "Hono bare JSON"); GET / is the same without a body.
// POST /insert also writes the body as one row to a WAL-mode SQLite file (argv[3]) and commits
// before answering: the "the same with one WAL-mode SQLite insert per request", the
// cheapest durable create there is, with the sandbox's durability settings.
// Writes its URL to the ready file (argv[2]).
import { writeFileSync } from 'node:fs';
import { serve } from '@hono/node-server';
import Database from 'better-sqlite3';
import { Hono } from 'hono';

const db = new Database(process.argv[3]);
db.pragma('journal_mode = WAL');
db.pragma('synchronous = NORMAL');
db.exec('CREATE TABLE IF NOT EXISTS creates (id INTEGER PRIMARY KEY, reference TEXT, body TEXT NOT NULL)');
const insert = db.prepare('INSERT INTO creates (reference, body) VALUES (?, ?)');

const app = new Hono();
app.get('/', (c) => c.json({ status: 'ok', service: 'bare-hono' }));
app.post('/', async (c) => {
  const body = await c.req.json();
  return c.json({ status: 'ok', reference: body.reference ?? null });
});
app.post('/insert', async (c) => {
  const text = await c.req.text();
  const body = JSON.parse(text);
  const { lastInsertRowid } = insert.run(body.reference ?? null, text);
  return c.json({ status: 'ok', id: Number(lastInsertRowid), reference: body.reference ?? null });
});

const server = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, (info) => {
  writeFileSync(process.argv[2], `http://127.0.0.1:${info.port}\n`);
});
process.once('SIGTERM', () =>
  server.close(() => {
    db.close();
    process.exit(0);
  }),
);
