// Load runs with autocannon (10 connections unless told): a short warm-up run first (JIT, page
// cache), then the measured run. Latency percentiles come from every response's own time,
// not autocannon's whole-millisecond histogram.
import autocannon from 'autocannon';
import { summarise } from './stats.js';
import { cpuMsOf, mainThreadCpuMsOf } from './processes.js';

function run(options, onLatency) {
  return new Promise((resolve, reject) => {
    const instance = autocannon(options, (err, result) => (err ? reject(err) : resolve(result)));
    instance.on('response', (_client, statusCode, _bytes, responseTime) => onLatency(statusCode, responseTime));
  });
}

/**
 * Measures one request shape: `request` is an autocannon request ({method, path, headers, body,
 * setupRequest}). Returns req/s, latency p50/p99 (ms) of 2xx answers, counts (2xx of the warm-up
 * too, since creates there also owe webhooks), status codes, and with `serverPid` the server's CPU
 * time per request.
 */
export async function measure(url, request, { seconds, warmupSeconds, connections = 10, sampleMs }, serverPid) {
  // autocannon stops a run only at its next sample tick (every `sampleInt` ms, 1 000 by default):
  // with `sampleMs` (quick mode: 100) a 0.3 s warm-up or a third of a second loads for that long,
  // not for a whole second.
  const base = { url, connections, pipelining: 1, requests: [request], timeout: 10, ...(sampleMs ? { sampleInt: sampleMs } : {}) };
  let warmupOk = 0;
  if (warmupSeconds > 0) await run({ ...base, duration: warmupSeconds }, (status) => (warmupOk += status >= 200 && status < 300 ? 1 : 0));
  const latencies = [];
  const statuses = {};
  const cpuBefore = serverPid ? cpuMsOf(serverPid) : NaN;
  const mainCpuBefore = serverPid ? mainThreadCpuMsOf(serverPid) : NaN;
  const result = await run({ ...base, duration: seconds }, (status, ms) => {
    statuses[status] = (statuses[status] ?? 0) + 1;
    if (status >= 200 && status < 300) latencies.push(ms);
  });
  const cpuMs = serverPid ? cpuMsOf(serverPid) - cpuBefore : NaN;
  const mainCpuMs = serverPid ? mainThreadCpuMsOf(serverPid) - mainCpuBefore : NaN;
  const ok = latencies.length;
  const total = result.requests.total;
  const lat = summarise(latencies);
  return {
    rps: ok / result.duration,
    p50: lat.p50,
    p99: lat.p99,
    ok,
    warmupOk,
    total,
    non2xx: result.non2xx,
    errors: result.errors + result.timeouts,
    statuses,
    seconds: result.duration,
    // The server's own CPU per answered request: steadier than req/s on a shared machine.
    cpuUsPerRequest: (cpuMs * 1000) / total,
    /** The same for the server's main thread only (the event loop and the SQLite writer). */
    mainCpuUsPerRequest: (mainCpuMs * 1000) / total,
  };
}
