// Bundles the entries of the package, each into one file with everything it imports but the
// native better-sqlite3: the CLI (dist/cli/program.js) into dist/sandbox.js, which bin/sandbox.js
// loads for every command but `start`, and the library with `start`'s CLI (dist/bundle-entry.js) into
// dist/paysandbox.cjs, which dist/paysandbox.js (what `import 'paysandbox'` loads, package.json's
// exports) and dist/start.js run from a V8 code cache (libraryBundle() below); the library's types
// stay tsc's dist/index.d.ts. Node's ESM loader pays per module: the CLI's ~300 files took about 430 ms
// to load here, the one bundle about 290 ms, and that is most of `sandbox start`'s time to first
// answer and of every other command's; the library's first import took 650-960 ms of CPU as modules
// and 270-380 as one bundle (a loaded machine; see docs/benchmarks.md), and a test suite pays it
// before its first test.
// In the CLI's bundle, code that only some commands need (the QR library, the local CA) is imported
// dynamically and split into dist/chunks/, so start-up neither compiles nor runs it; so is the --otlp
// tracer, whose OpenTelemetry packages stay external in every bundle.
// The entries are built apart, not as one build with shared chunks: code-dir.ts finds the migrations
// next to the module that holds it, which must stay in dist/, not in dist/chunks/.
import { build } from 'esbuild';
import { createHash } from 'node:crypto';
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
await libraryBundle();
// The HTTP front thread's entry (server/front/front-thread.ts): one file, so the thread listens soon after it starts.
await build({ ...common, entryPoints: { 'front-thread': 'dist/server/front/front-thread.js' } });
// The chunks too: the zod chunk, which every entry loads, held one comment outside ASCII.
const chunks = readdirSync('dist/chunks').map((name) => `dist/chunks/${name}`);
for (const file of ['dist/sandbox.js', 'dist/front-thread.js', ...chunks]) asciiComments(file);

/**
 * The library and `sandbox start`: one CommonJS file (dist/paysandbox.cjs, from bundle-entry.ts),
 * which runtime/compiled-bundle.ts runs with a V8 code cache (Node 20 keeps none for ES modules), and
 * two ES module entries made here that load it:
 * - dist/paysandbox.js, what package.json exports: it names the library's exports, and its
 *   startSandbox() saves the cache once the sandbox has answered its warm-up requests, so the cache
 *   holds the request path compiled too. The names are read from an ES module build of index.ts (not
 *   written), so the two export the same.
 * - dist/start.js, which bin/sandbox.js runs for `sandbox start` once it has started the HTTP front
 *   thread, so the thread boots while the bundle loads; it saves its own cache
 *   once the start has printed its Listening line.
 * One file, not chunks: a cache is per script, and the code only some calls need (the QR library,
 * the local CA, the rest of the CLI) stays uncompiled in it until they run.
 */
async function libraryBundle() {
  const cjs = {
    ...common,
    splitting: false,
    format: 'cjs',
    outdir: undefined,
    outfile: 'dist/paysandbox.cjs',
    entryPoints: ['dist/bundle-entry.js'],
    // The local CA's node-forge (--https) and the QR pages' qrcode are a quarter of the bundle (740 KB)
    // and only some starts need them: required from node_modules when they first run, they take
    // neither the bundle's memory nor its cache. (The MCP SDK stays in: it shares the bundle's zod.)
    external: [...common.external, 'node-forge', 'qrcode'],
    // code-dir.ts and the checkpointer find files from import.meta.url: in CommonJS, the bundle's own path.
    define: { 'import.meta.url': '__bundleUrl' },
    // Every import() becomes a require(): a script run from a V8 code cache loses its dynamic import
    // callback on Node 20 (ERR_VM_DYNAMIC_IMPORT_CALLBACK_MISSING), and what the bundle imports that
    // way (node:http, the OpenTelemetry packages) loads with require() as well.
    supported: { 'dynamic-import': false },
    banner: { js: "const __bundleUrl = require('node:url').pathToFileURL(__filename).href;" },
  };
  await build(cjs);
  // Before the hash below, which names the file as it is run. A bundle left all ASCII is read as
  // Latin-1 (runtime/compiled-bundle.ts); one with code outside it, as UTF-8.
  asciiComments(cjs.outfile);
  const bundled = readFileSync(cjs.outfile, 'utf8');
  const text = /[^\x00-\x7f]/.test(bundled) ? 'utf8' : 'ascii';
  const left = bundled.match(/[^.\w]import\(\s*["'`][^"'`]+/g);
  if (left) throw new Error(`bundle-cli: ${cjs.outfile} still holds import(): ${left.join(', ')}`);
  const esm = await build({ ...common, splitting: false, outdir: undefined, entryPoints: ['dist/index.js'], write: false, metafile: true });
  const names = Object.values(esm.metafile.outputs).flatMap((output) => output.exports ?? []);
  if (!names.includes('startSandbox')) throw new Error('bundle-cli: the library exports no startSandbox');
  const contents = createHash('sha256').update(bundled).digest('hex').slice(0, 32);
  const load = (role) => `const bundle = loadBundle(new URL('./paysandbox.cjs', import.meta.url), '${contents}', '${role}', '${text}');`;
  const others = names.filter((name) => name !== 'startSandbox').sort();
  writeFileSync(
    'dist/paysandbox.js',
    `// The library's entry, made by scripts/bundle-cli.js: it runs dist/paysandbox.cjs from its code cache
// (runtime/compiled-bundle.ts) and names its exports; its types are dist/index.d.ts.
import { loadBundle } from './runtime/compiled-bundle.js';

${load('library')}
const library = bundle.exports;

export const { ${others.join(', ')} } = library;

/** Starts a sandbox (see dist/index.d.ts); the first start of this build also saves the code cache. */
export async function startSandbox(options) {
  const sandbox = await library.startSandbox(options);
  bundle.saveCache();
  return sandbox;
}
`,
  );
  writeFileSync(
    'dist/start.js',
    `// \`sandbox start\`'s entry (bin/sandbox.js), made by scripts/bundle-cli.js: the front thread, which
// bin/sandbox.js started, boots while this loads the CLI from dist/paysandbox.cjs and its code cache
// (runtime/compiled-bundle.ts).
import { loadBundle } from './runtime/compiled-bundle.js';

${load('start')}
const cli = await bundle.exports.loadCli();
cli.whenStarted(() => bundle.saveCache());

export const run = cli.run;
`,
  );
}

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
