// The baseline: a bare Hono app on @hono/node-server answering one small JSON object, in its own
// process like the sandbox under test. Writes its URL to the ready file (argv[2]).
import { writeFileSync } from 'node:fs';
import { serve } from '@hono/node-server';
import { Hono } from 'hono';

const app = new Hono();
app.get('/', (c) => c.json({ status: 'ok', service: 'bare-hono' }));

const server = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, (info) => {
  writeFileSync(process.argv[2], `http://127.0.0.1:${info.port}\n`);
});
process.once('SIGTERM', () => server.close(() => process.exit(0)));
