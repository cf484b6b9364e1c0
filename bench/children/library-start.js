// A test suite's first moments, in a fresh node process: `import('paysandbox')` (dist/paysandbox.js, the bundle package.json exports),
// `startSandbox()` (its defaults: an in-memory database, a free port), then the first answered
// request over HTTP (GET /_sandbox/health with node:http, so no client library is loaded first).
// Prints one JSON line: each step's wall time and the process's CPU time, in ms.
import http from 'node:http';

const t0 = performance.now();
const cpu0 = process.cpuUsage();
const { startSandbox } = await import('../../dist/paysandbox.js');
const t1 = performance.now();
const sandbox = await startSandbox();
const t2 = performance.now();
const status = await new Promise((resolve, reject) => {
  http
    .get(`${sandbox.url}/_sandbox/health`, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode));
    })
    .on('error', reject);
});
const t3 = performance.now();
const cpu = process.cpuUsage(cpu0);
if (status !== 200) throw new Error(`GET /_sandbox/health answered ${status}`);
await sandbox.close();
console.log(
  JSON.stringify({ importMs: t1 - t0, startMs: t2 - t1, firstAnswerMs: t3 - t2, totalMs: t3 - t0, cpuMs: (cpu.user + cpu.system) / 1000 }),
);
