// Webhooks: latency from a frictionless create to the merchant's receiver, and how fast the
// outbox drains to a local receiver at 8 and 32 attempts in flight.
import { request } from './lib/http.js';
import { cpuMsOf, mainThreadCpuMsOf, SANDBOX_NODE_FLAGS, startSandbox, startScript, tempPath, memoryOf } from './lib/processes.js';
import { summarise } from './lib/stats.js';
import { CARDS, s2sFields, uniqueReference } from './lib/bodies.js';

/**
 * One payment at a time with 4242 (approved in the create's own transaction, so the webhook is
 * committed before the response is sent): time from just before the request is sent to the
 * receiver having the webhook, next to the create's own response time. Both clocks are this
 * process's, so commit -> receiver is at most the first figure.
 */
export async function benchWebhookLatency(ctx) {
  const { report, receiver, quick } = ctx;
  const count = quick ? 100 : 500;
  const warmup = quick ? 20 : 50;
  const sandbox = await startSandbox({ db: tempPath('latency', '.db') });
  try {
    const arrival = [];
    const response = [];
    const afterResponse = [];
    for (let i = 0; i < warmup + count; i++) {
      const reference = uniqueReference('lat');
      const path = `/latency/${reference}`;
      const body = s2sFields({ card: CARDS.frictionless, reference, webhookUrl: receiver.url + path });
      const sent = performance.now();
      const res = await request(`${sandbox.url}/api/s2s`, { method: 'POST', body });
      const answered = performance.now();
      if (res.status !== 200 || res.json.order_status !== '25')
        throw new Error(`a 4242 create answered ${res.status}: ${res.text.slice(0, 200)}`);
      const arrived = await receiver.waitForPath(path, 10_000);
      if (i < warmup) continue;
      arrival.push(arrived - sent);
      response.push(answered - sent);
      afterResponse.push(arrived - answered);
    }
    const a = summarise(arrival);
    const r = summarise(response);
    const d = summarise(afterResponse);
    report.measure({
      group: 'webhooks',
      name: `webhook latency: request sent -> receiver has it (${count} payments, one at a time)`,
      figure: `p50 ${a.p50.toFixed(2)} ms, p99 ${a.p99.toFixed(2)} ms`,
      target: 'webhook latency p50 < 10 ms',
      pass: a.p50 < 10,
    });
    report.measure({
      group: 'webhooks',
      name: 'the same creates: response time',
      figure: `p50 ${r.p50.toFixed(2)} ms, p99 ${r.p99.toFixed(2)} ms`,
    });
    report.measure({
      group: 'webhooks',
      name: 'the same creates: response received -> webhook received',
      figure: `p50 ${d.p50.toFixed(2)} ms, p99 ${d.p99.toFixed(2)} ms`,
    });
  } finally {
    await sandbox.stop();
  }
}

/**
 * Deliveries per second: a child sandbox (bench/children/outbox.js) fills its outbox with N
 * frictionless payments while its worker is stopped, then starts the worker with 8 or 32
 * attempts in flight; the rate is N over the time until the receiver has the N-th webhook.
 * Both children start and fill at the same time (nothing is measured while they fill; a child
 * whose worker is stopped sits idle), then drain one after the other.
 */
export async function benchDeliveries(ctx) {
  const { report, receiver, quick } = ctx;
  const count = quick ? 1000 : 5000;
  const children = await Promise.allSettled([8, 32].map((concurrency) => filledOutbox(receiver, concurrency, count)));
  try {
    for (const child of children) if (child.status === 'rejected') throw child.reason;
    for (const { concurrency, child } of children.map((settled) => settled.value)) {
      receiver.reset();
      const cpuBefore = cpuMsOf(child.pid);
      const mainCpuBefore = mainThreadCpuMsOf(child.pid);
      const started = performance.now();
      child.child.send({ type: 'go' });
      const lastArrived = await receiver.waitForCount(count, 120_000);
      const seconds = (lastArrived - started) / 1000;
      const status = await ask(child.child, { type: 'status', count });
      const cpuUs = ((cpuMsOf(child.pid) - cpuBefore) * 1000) / count;
      const mainCpuUs = ((mainThreadCpuMsOf(child.pid) - mainCpuBefore) * 1000) / count;
      const memory = memoryOf(child.pid);
      const rate = count / seconds;
      report.measure({
        group: 'webhooks',
        name: `deliveries/s to a local receiver, ${concurrency} in flight (${count} queued)`,
        figure: `${Math.round(rate)}/s; ${status.succeeded} succeeded, ${status.other} not; ${Math.round(mainCpuUs)} µs main-thread CPU per delivery (${Math.round(cpuUs)} µs whole process); RSS ${memory.rssMb.toFixed(0)} MB`,
        target: 'deliveries >= 1000/s, <= 100 µs main-thread CPU per delivery',
        pass: rate >= 1000 && status.succeeded === count && mainCpuUs <= 100,
      });
    }
  } finally {
    for (const settled of children) if (settled.status === 'fulfilled') await closeOutbox(settled.value.child);
  }
}

/** Starts an outbox child sandbox with `concurrency` attempts in flight and fills its outbox with `count` deliveries. */
async function filledOutbox(receiver, concurrency, count) {
  // The library-hosted sandbox runs with the node flags bin/sandbox.js gives a user's sandbox.
  const child = await startScript('outbox.js', [tempPath('outbox', '.db'), `${receiver.url}/outbox`, String(concurrency)], {
    ipc: true,
    nodeFlags: SANDBOX_NODE_FLAGS,
  });
  try {
    const filled = await ask(child.child, { type: 'fill', count });
    if (filled.pending !== count) throw new Error(`the outbox holds ${filled.pending} deliveries, expected ${count}`);
    return { concurrency, child };
  } catch (err) {
    await closeOutbox(child);
    throw err;
  }
}

/** Asks an outbox child to close and waits for it to exit. */
async function closeOutbox(child) {
  child.child.send({ type: 'close' });
  await child.exited;
}

/** Sends `message` to the child and resolves with its answer of the same type. */
function ask(child, message) {
  return new Promise((resolve, reject) => {
    const onMessage = (answer) => {
      if (answer.type === 'error') reject(new Error(answer.message));
      else if (answer.type === message.type) resolve(answer);
      else return;
      child.off('message', onMessage);
    };
    child.on('message', onMessage);
    child.send(message);
  });
}
