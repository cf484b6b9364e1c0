#!/usr/bin/env -S node --max-semi-space-size=2 --max-old-space-size=1024 --v8-pool-size=1
// The V8 flags above keep a busy sandbox under 120 MB resident (145 MB without): a 2 MB young
// generation instead of 16 MB, a 1 GiB heap limit, which makes V8 collect the old generation
// before it doubles, and one V8 helper thread instead of one per core (each keeps its own malloc
// arena). Together they cost about 7% CPU per request. `npm start` passes the same flags; run
// `node --max-old-space-size=4096 bin/sandbox.js ...` for a bigger heap (docs/reliability.md).
// `sandbox start` runs from the package's one CommonJS bundle and its code cache (dist/start.js);
// every other command from the CLI's ES module bundle, which loads only what the command needs.
const { run } = process.argv[2] === 'start' ? await import('../dist/start.js') : await import('../dist/sandbox.js');

await run(process.argv);
