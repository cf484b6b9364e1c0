// The steps library-start.js and its baseline library-floor.js time alike, in a fresh process: an
// import, a start that returns a URL, and the first answered GET /_sandbox/health over node:http
// (no client library is loaded first). Prints one JSON line: each step's wall time and the
// process's CPU time over the three, in ms.
import http from 'node:http';

/** Times `load()` (the imports), `start(loaded)` (resolves with { url, close }) and the first answer, then closes. */
export async function timeStartSteps(load, start) {
  const t0 = performance.now();
  const cpu0 = process.cpuUsage();
  const loaded = await load();
  const t1 = performance.now();
  const started = await start(loaded);
  const t2 = performance.now();
  const status = await new Promise((resolve, reject) => {
    http
      .get(`${started.url}/_sandbox/health`, (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode));
      })
      .on('error', reject);
  });
  const t3 = performance.now();
  const cpu = process.cpuUsage(cpu0);
  if (status !== 200) throw new Error(`GET /_sandbox/health answered ${status}`);
  await started.close();
  console.log(
    JSON.stringify({
      importMs: t1 - t0,
      startMs: t2 - t1,
      firstAnswerMs: t3 - t2,
      totalMs: t3 - t0,
      cpuMs: (cpu.user + cpu.system) / 1000,
    }),
  );
}
