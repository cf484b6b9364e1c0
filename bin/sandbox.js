#!/usr/bin/env -S node --max-semi-space-size=2 --max-old-space-size=1024 --v8-pool-size=1 --no-allocation-site-pretenuring
// The V8 flags above keep a busy sandbox's memory small: a 2 MB young generation instead of 16 MB,
// a 1 GiB heap limit, which makes V8 collect the old generation before it doubles, and one V8
// helper thread instead of one per core (each keeps its own malloc arena). The last one turns off
// V8's pretenuring (allocating in the old generation what is made where most objects outlived a
// scavenge): with it, a request's objects, which live about as long as a scavenge's interval, were
// promoted whole under load (72 % of what survived a scavenge, a mark-compact of the main thread
// every 0.5-0.7 s); without it none are, and a create costs 0.88 of the CPU, a charge 0.84, with
// less memory (bench/method.md, "V8's pretenuring"). `npm start` and the container pass the same
// flags; run `node --max-old-space-size=4096 bin/sandbox.js ...` for a bigger heap (docs/reliability.md).
// `sandbox start` runs from the package's one CommonJS bundle and its code cache (dist/start.js);
// every other command from the CLI's ES module bundle, which loads only what the command needs.
// The start's HTTP front thread is started first, so it boots while the rest loads: imported here,
// with this file, it starts 20-30 ms sooner than from dist/start.js (server/front/early-thread.ts),
// when --front-thread (or its variable) and the machine's cores say there is one.
import { earlyFrontThreadSetting, startFrontThreadEarly } from '../dist/server/front/early-thread.js';

if (process.argv[2] === 'start') startFrontThreadEarly(earlyFrontThreadSetting(process.argv, process.env));
const { run } = process.argv[2] === 'start' ? await import('../dist/start.js') : await import('../dist/sandbox.js');

await run(process.argv);
