// Bundles the entries of the package, each into one file with everything it imports but the
// native better-sqlite3: the CLI (dist/cli/program.js) into dist/sandbox.js, which bin/sandbox.js
// loads, and the library (dist/index.js) into dist/paysandbox.js, what `import 'paysandbox'` loads
// (package.json's exports; its types stay tsc's dist/index.d.ts). Node's ESM loader pays per module: the CLI's ~300 files took about 430 ms to load here, the
// one bundle about 290 ms, and that is most of `sandbox start`'s time to first answer and of every
// other command's; the library's first import took 650-960 ms of CPU as modules and 270-380 as one
// bundle (a loaded machine; see docs/benchmarks.md), and a test suite pays it before its first test.
// Code that only some requests need (the QR library, the local CA) is imported dynamically and split
// into dist/chunks/, so start-up neither compiles nor runs it; so is the --otlp tracer, whose
// OpenTelemetry packages stay external.
// The two are built apart, not as one build with shared chunks: code-dir.ts finds the migrations
// next to the module that holds it, which must stay in dist/, not in dist/chunks/.
import { build } from 'esbuild';
import { readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';

const common = {
  outdir: 'dist',
  splitting: true,
  chunkNames: 'chunks/[name]-[hash]',
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  // The OpenTelemetry SDK stays a package of its own, imported only by the chunk --otlp loads
  // (runtime/otlp-tracer.ts): no bundle that starts without the flag reads a byte of it.
  external: ['better-sqlite3', '@opentelemetry/*'],
  // CommonJS dependencies (commander, qrcode) call require() for node builtins.
  banner: { js: "import { createRequire as __sandboxRequire } from 'node:module';\nconst require = __sandboxRequire(import.meta.url);" },
  logLevel: 'warning',
};

rmSync('dist/chunks', { recursive: true, force: true });
await build({ ...common, entryPoints: { sandbox: 'dist/cli/program.js' } });
await build({ ...common, entryPoints: { paysandbox: 'dist/index.js' } });
// The HTTP front thread's entry (server/front/front-thread.ts): one file, so the thread listens soon after it starts.
await build({ ...common, entryPoints: { 'front-thread': 'dist/server/front/front-thread.js' } });
// The chunks too: the zod chunk, which every entry loads, held one comment outside ASCII.
const chunks = readdirSync('dist/chunks').map((name) => `dist/chunks/${name}`);
for (const file of ['dist/sandbox.js', 'dist/paysandbox.js', 'dist/front-thread.js', ...chunks]) asciiComments(file);

/**
 * esbuild escapes every non-ASCII character of the code it writes but keeps some comments as they
 * are, and one character outside ASCII anywhere makes Node decode the whole file as UTF-8 and V8
 * hold and parse it as a two-byte string: about 15 % of the library's import (five runs each).
 * Comments only: a non-ASCII character in code would be a build problem to fix at its source.
 */
function asciiComments(file) {
  const lines = readFileSync(file, 'utf8').split('\n');
  const comment = /^\s*(\/\/|\/\*|\*)/;
  let code = 0;
  const fixed = lines.map((line) => {
    if (!/[^\x00-\x7f]/.test(line)) return line;
    if (comment.test(line)) return line.replace(/[^\x00-\x7f]/g, '?');
    code++;
    return line;
  });
  if (code > 0) console.warn(`${file}: ${code} line(s) of code hold non-ASCII characters; the file loads slower`);
  writeFileSync(file, fixed.join('\n'));
}
