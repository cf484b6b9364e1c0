// The OpenTelemetry SDK is loaded only with --otlp (docs/tracing.md): the built bundles (the CLI's,
// the library's, the front thread's) import none of its packages, and the one chunk that does is
// reached only through a dynamic import(), which the start runs only when the flag is set.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
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

  it('the chunk with the SDK is imported dynamically, and only by the start', () => {
    const chunks = readdirSync(join(DIST, 'chunks')).filter((name) =>
      staticImports(join(DIST, 'chunks', name)).some((spec) => spec.startsWith('@opentelemetry/')),
    );
    expect(chunks).toHaveLength(1);
    for (const bundle of ['sandbox.js', 'paysandbox.js']) {
      const text = readFileSync(join(DIST, bundle), 'utf8');
      expect(text).toContain(`await import("./chunks/${chunks[0]}")`);
    }
  });
});
