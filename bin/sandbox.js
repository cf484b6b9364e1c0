#!/usr/bin/env -S node --optimize-for-size
// --optimize-for-size makes V8 grow its heap less eagerly: about 110 MB of RSS under load instead
// of 145 MB, at the same throughput within noise (docs/benchmarks.md). `npm start` passes it too;
// when started as `node bin/sandbox.js` it is set here, before anything else is loaded (hence the
// dynamic import), which keeps most of the saving.
import v8 from 'node:v8';

if (!process.execArgv.includes('--optimize-for-size')) v8.setFlagsFromString('--optimize-for-size');
const { run } = await import('../dist/cli/program.js');
await run(process.argv);
