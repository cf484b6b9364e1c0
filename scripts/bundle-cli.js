// Bundles the CLI (dist/cli/program.js and everything it imports but the native better-sqlite3)
// into dist/sandbox.js, which bin/sandbox.js loads. Node's ESM loader pays per module: the CLI's
// ~300 files took about 430 ms to load here, the one bundle about 290 ms, and that is most of
// `sandbox start`'s time to first answer and of every other command's. The library entry
// (dist/index.js) stays as separate modules with their types.
// Code that only some requests need (the QR library) is imported dynamically and split into
// dist/chunks/, so start-up neither compiles nor runs it.
import { build } from 'esbuild';
import { rmSync } from 'node:fs';

rmSync('dist/chunks', { recursive: true, force: true });
await build({
  entryPoints: { sandbox: 'dist/cli/program.js' },
  outdir: 'dist',
  splitting: true,
  chunkNames: 'chunks/[name]-[hash]',
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  external: ['better-sqlite3'],
  // CommonJS dependencies (commander, qrcode) call require() for node builtins.
  banner: { js: "import { createRequire as __sandboxRequire } from 'node:module';\nconst require = __sandboxRequire(import.meta.url);" },
  logLevel: 'warning',
});
