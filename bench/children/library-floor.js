// The least a test suite's in-process sandbox can take to answer on this machine, the baseline of
// library-start.js: in a fresh node process, import Hono, @hono/node-server and better-sqlite3 (the
// libraries the sandbox itself stands on), open an in-memory database with three tables, listen on
// a free port, and answer one GET /_sandbox/health over node:http. No schema, migration, route or
// warm-up of the sandbox's own. Prints one JSON line like library-start.js.
import http from 'node:http';

const t0 = performance.now();
const cpu0 = process.cpuUsage();
const [{ Hono }, { serve }, { default: Database }] = await Promise.all([
  import('hono'),
  import('@hono/node-server'),
  import('better-sqlite3'),
]);
const t1 = performance.now();
const db = new Database(':memory:');
db.exec(
  'CREATE TABLE a (id TEXT PRIMARY KEY, v TEXT); CREATE TABLE b (id TEXT PRIMARY KEY, v TEXT); CREATE TABLE c (id TEXT PRIMARY KEY, v TEXT)',
);
const one = db.prepare('SELECT 1').pluck();
const app = new Hono();
app.get('/_sandbox/health', (c) => c.json({ status: 'ok', database: one.get() === 1 }));
const { server, url } = await new Promise((resolve) => {
  const server = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, (info) =>
    resolve({ server, url: `http://127.0.0.1:${info.port}` }),
  );
});
const t2 = performance.now();
const status = await new Promise((resolve, reject) => {
  http
    .get(`${url}/_sandbox/health`, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode));
    })
    .on('error', reject);
});
const t3 = performance.now();
const cpu = process.cpuUsage(cpu0);
if (status !== 200) throw new Error(`GET /_sandbox/health answered ${status}`);
server.close();
db.close();
console.log(
  JSON.stringify({ importMs: t1 - t0, startMs: t2 - t1, firstAnswerMs: t3 - t2, totalMs: t3 - t0, cpuMs: (cpu.user + cpu.system) / 1000 }),
);
