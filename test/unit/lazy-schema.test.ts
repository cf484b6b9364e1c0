// Schemas built on first use (src/lazy-schema.ts): a builder runs on the first call and never again,
// and no request or answer schema module hands out a schema it built when it loaded, which is what
// keeps `import('paysandbox')` and a start from building the schemas of routes a suite never calls.
// Every builder is run here once, so a schema that cannot be built fails a test, not a first request.
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import * as z from 'zod';
import { lazySchema } from '../../src/lazy-schema.js';

const ROOT = join(import.meta.dirname, '..', '..');

it('builds the schema on the first call, once, and answers the same instance after', () => {
  let builds = 0;
  const schema = lazySchema(() => {
    builds++;
    return z.object({ amount: z.number().int() });
  });
  expect(builds).toBe(0);
  const first = schema();
  expect(builds).toBe(1);
  expect(schema()).toBe(first);
  expect(builds).toBe(1);
  expect(first.safeParse({ amount: 5 }).success).toBe(true);
});

it.each(['src/contracts', 'src/views'])('no module in %s exports a schema built when it loads', async (dir) => {
  const files = readdirSync(join(ROOT, dir)).filter((name) => name.endsWith('.ts'));
  expect(files.length).toBeGreaterThan(15);
  const built: string[] = [];
  for (const file of files) {
    const module = (await import(join(ROOT, dir, file))) as Record<string, unknown>;
    for (const [name, value] of Object.entries(module))
      if (value instanceof z.ZodType || (typeof value === 'object' && value !== null && '_zod' in value)) built.push(`${file}: ${name}`);
  }
  // time.ts's isoTime is one string schema every answer schema shares; it is cheaper built than wrapped.
  expect(built).toEqual(dir === 'src/views' ? ['time.ts: isoTime'] : []);
});

it.each(['src/contracts', 'src/views'])('every schema builder in %s builds a schema', async (dir) => {
  const files = readdirSync(join(ROOT, dir)).filter((name) => name.endsWith('.ts'));
  let builders = 0;
  for (const file of files) {
    const module = (await import(join(ROOT, dir, file))) as Record<string, unknown>;
    for (const [name, value] of Object.entries(module)) {
      // A builder takes no argument; functions that take one (toPaymentView, listOf) are not builders.
      // A throw here fails the test with the builder's error.
      if (typeof value !== 'function' || value.length !== 0 || /^[A-Z]/.test(name)) continue;
      if ((value as () => unknown)() instanceof z.ZodType) builders++;
    }
  }
  expect(builders).toBeGreaterThan(dir === 'src/views' ? 50 : 60);
});
