// The OpenTelemetry SDK is loaded only with --otlp (docs/tracing.md): the built bundles (the CLI's,
// the library's, the front thread's) import none of its packages, and the one chunk that does is
// reached only through a dynamic import(), which the start runs only when the flag is set. The
// library's code is one CommonJS file (dist/paysandbox.cjs), where the tracer's require() of the SDK
// runs when its module is first imported: a process that starts a sandbox shows whether it did.
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { describe, expect, it } from 'vitest';

const DIST = join(import.meta.dirname, '../../dist');
const BUNDLES = ['sandbox.js', 'paysandbox.js', 'front-thread.js'];
/** A static import of a module: `import ... from "x"` or `import "x"`. */
const STATIC_IMPORT = /^\s*(?:import\s[^;]*?\sfrom\s*|import\s*)["']([^"']+)["']/gm;

/** The modules a built file imports statically. */
function staticImports(file: string): string[] {
  return [...readFileSync(file, 'utf8').matchAll(STATIC_IMPORT)].map((m) => m[1]!);
}

/** Every file a bundle loads at start: itself and the chunks it imports statically, transitively. */
function loadedAtStart(bundle: string): Set<string> {
  const seen = new Set<string>();
  const visit = (file: string) => {
    if (seen.has(file)) return;
    seen.add(file);
    for (const spec of staticImports(file)) if (spec.startsWith('.')) visit(join(file, '..', spec));
  };
  visit(join(DIST, bundle));
  return seen;
}

describe('the OpenTelemetry SDK stays out of a start without --otlp', () => {
  it.each(BUNDLES)('%s and the chunks it loads import no @opentelemetry package', (bundle) => {
    const files = loadedAtStart(bundle);
    expect(files.size).toBeGreaterThan(0);
    for (const file of files)
      expect(
        staticImports(file).filter((spec) => spec.startsWith('@opentelemetry/')),
        file,
      ).toEqual([]);
  });

  it('the chunk with the SDK is imported dynamically, never statically', () => {
    const built = [
      ...readdirSync(DIST)
        .filter((name) => name.endsWith('.js'))
        .map((name) => join(DIST, name)),
      ...readdirSync(join(DIST, 'chunks')).map((name) => join(DIST, 'chunks', name)),
    ];
    const chunks = built.filter((file) => staticImports(file).some((spec) => spec.startsWith('@opentelemetry/')));
    expect(chunks).toHaveLength(1);
    const name = basename(chunks[0]!);
    // The start's code is itself a lazily loaded chunk of the CLI: whichever file holds it reaches the SDK's chunk by import().
    const importers = built.filter(
      (file) =>
        readFileSync(file, 'utf8').includes(`import("./${name}")`) || readFileSync(file, 'utf8').includes(`import("./chunks/${name}")`),
    );
    expect(importers.length).toBeGreaterThan(0);
    expect(built.filter((file) => staticImports(file).some((spec) => basename(spec) === name))).toEqual([]);
  });

  it("the library's startSandbox() loads none of its packages, and startSandbox({ otlp }) does", () => {
    const loaded = (options: string) =>
      execFileSync(
        process.execPath,
        [
          '--input-type=module',
          '-e',
          `import { createRequire } from 'node:module';
const { startSandbox } = await import(${JSON.stringify(join(DIST, 'paysandbox.js'))});
const sandbox = await startSandbox(${options});
await sandbox.close();
const cache = createRequire(${JSON.stringify(join(DIST, 'paysandbox.cjs'))}).cache;
console.log(Object.keys(cache).filter((file) => file.includes('@opentelemetry')).length);`,
        ],
        { encoding: 'utf8', env: { ...process.env, NODE_DISABLE_COMPILE_CACHE: '1' } },
      ).trim();
    expect(loaded('')).toBe('0');
    expect(Number(loaded("{ otlp: 'http://127.0.0.1:9/v1/traces' }"))).toBeGreaterThan(0);
  }, 30_000);
});
