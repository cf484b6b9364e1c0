// The baseline: a bare Hono app on @hono/node-server, in its own process like the sandbox under
// test. POST / parses a JSON body and answers a small JSON object: the request work every create
// does before its own logic (DESIGN.md's "Hono bare JSON"); GET / is the same without a body.
// Writes its URL to the ready file (argv[2]).
import { writeFileSync } from 'node:fs';
import { serve } from '@hono/node-server';
import { Hono } from 'hono';

const app = new Hono();
app.get('/', (c) => c.json({ status: 'ok', service: 'bare-hono' }));
app.post('/', async (c) => {
  const body = await c.req.json();
  return c.json({ status: 'ok', reference: body.reference ?? null });
});

const server = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, (info) => {
  writeFileSync(process.argv[2], `http://127.0.0.1:${info.port}\n`);
});
process.once('SIGTERM', () => server.close(() => process.exit(0)));
