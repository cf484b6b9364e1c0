// A live-stream (SSE) client that stops reading must not make the sandbox buffer events for it
// without bound: once its socket is full it may fall MAX_PENDING_EVENTS behind, then it is dropped
// (its connection closed, one log line) while the sandbox and other subscribers carry on.
import net from 'node:net';
import { afterEach, expect, it } from 'vitest';
import { MAX_PENDING_EVENTS } from '../../src/http/control/stream.js';
import { startLoggedServer } from '../helpers/logged-server.js';
import { waitFor } from '../helpers/wait-for.js';

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!();
});

it('a subscriber that never reads is dropped once it falls behind, and its buffer stays bounded', async () => {
  const { sandbox, lines } = await startLoggedServer('pretty');
  cleanups.push(sandbox.close);
  const activity = sandbox.services.activity;

  // A raw client that sends the request and then never reads a byte.
  const socket = net.connect(Number(new URL(sandbox.url).port), '127.0.0.1');
  cleanups.push(() => void socket.destroy());
  socket.pause();
  socket.write('GET /_sandbox/stream HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n');
  await waitFor(() => activity.subscribers === 1, 'the stream to subscribe');

  // Big events fill the socket's buffers quickly; a turn between batches lets the stream write.
  const blob = 'x'.repeat(8 * 1024);
  let largest = 0;
  for (let sent = 0; activity.subscribers > 0 && sent < 6000; ) {
    for (let i = 0; i < 100; i++, sent++) activity.publish({ kind: 'event.created', at: Date.now(), data: { id: `evt_${sent}`, blob } });
    largest = Math.max(largest, activity.buffered);
    await new Promise((resolve) => setImmediate(resolve));
  }

  expect(activity.subscribers).toBe(0);
  expect(activity.dropped).toBe(1);
  expect(largest).toBeLessThanOrEqual(MAX_PENDING_EVENTS);
  expect(activity.buffered).toBe(0);
  expect(lines.filter((line) => line.includes('live stream dropped'))).toHaveLength(1);
  // The server closed the connection: read what was sent, and the stream ends.
  const ended = new Promise<void>((resolve) => socket.on('close', () => resolve()));
  socket.on('error', () => {});
  socket.resume();
  await ended;
  // The sandbox carries on: a new subscriber gets the next event.
  const res = await fetch(`${sandbox.url}/_sandbox/stream`);
  const reader = res.body!.getReader();
  cleanups.push(() => void reader.cancel().catch(() => {}));
  await waitFor(() => activity.subscribers === 1, 'the second stream to subscribe');
  activity.publish({ kind: 'event.created', at: Date.now(), data: { id: 'evt_after' } });
  let text = '';
  await waitFor(async () => {
    const { value } = await reader.read();
    text += new TextDecoder().decode(value);
    return text.includes('evt_after');
  }, 'the event on the new stream');
});
