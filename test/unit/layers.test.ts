// One facade: routes, pages, the control API, the CLI and startSandbox() reach state only through
// service methods. A `.deps` or `.store` in those folders is a way around the services (straight to
// the repositories, the clock or the outbox), so it fails here with the lines that do it.
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { expect, it } from 'vitest';
import { createTestSandbox } from '../helpers/test-sandbox.js';

const ROOT = join(import.meta.dirname, '..', '..');
const LAYERS = ['src/http', 'src/pages', 'src/library', 'src/cli'];
/** Reaching into the services' dependencies (services.deps.clock) or the store (server.store.deliveries). */
const AROUND_THE_FACADE = /\.(deps|store)\b/;

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return /\.tsx?$/.test(entry.name) ? [path] : [];
  });
}

it('no route, page, library or CLI module reaches past the services to their dependencies or the store', () => {
  const files = LAYERS.flatMap((layer) => sourceFiles(join(ROOT, layer)));
  expect(files.length).toBeGreaterThan(40);
  const offending = files.flatMap((file) =>
    readFileSync(file, 'utf8')
      .split('\n')
      .flatMap((line, i) => (AROUND_THE_FACADE.test(line) ? [`${relative(ROOT, file)}:${i + 1}: ${line.trim()}`] : [])),
  );
  expect(offending).toEqual([]);
});

it('createServices() hands out services, not the dependencies they are built from', () => {
  const sandbox = createTestSandbox();
  try {
    expect(Object.keys(sandbox.services)).not.toContain('deps');
    expect(Object.keys(sandbox.services)).not.toContain('store');
  } finally {
    sandbox.close();
  }
});
