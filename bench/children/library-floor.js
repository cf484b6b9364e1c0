// The least a test suite's in-process sandbox can take to answer on this machine, the baseline of
// library-start.js: in a fresh node process, import Hono, @hono/node-server and better-sqlite3 (the
// libraries the sandbox itself stands on), open an in-memory database with three tables, listen on
// a free port, and answer one GET /_sandbox/health (start-steps.js). No schema, migration, route or
// warm-up of the sandbox's own. Prints one JSON line like library-start.js.
import { timeStartSteps } from './start-steps.js';

await timeStartSteps(
  () => Promise.all([import('hono'), import('@hono/node-server'), import('better-sqlite3')]),
  async ([{ Hono }, { serve }, { default: Database }]) => {
    const db = new Database(':memory:');
    db.exec(
      'CREATE TABLE a (id TEXT PRIMARY KEY, v TEXT); CREATE TABLE b (id TEXT PRIMARY KEY, v TEXT); CREATE TABLE c (id TEXT PRIMARY KEY, v TEXT)',
    );
    const one = db.prepare('SELECT 1').pluck();
    const app = new Hono();
    app.get('/_sandbox/health', (c) => c.json({ status: 'ok', database: one.get() === 1 }));
    return new Promise((resolve) => {
      const server = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, (info) =>
        resolve({
          url: `http://127.0.0.1:${info.port}`,
          close: () => new Promise((closed) => server.close(() => closed(db.close()))),
        }),
      );
    });
  },
);
