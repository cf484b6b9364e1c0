// One webhook POST over kept-alive connections (src/webhooks/delivery/http-sender.ts), against a
// receiver on 127.0.0.1 written with node:net, so when it closes a connection is up to the test.
import net from 'node:net';
import { afterEach, expect, it } from 'vitest';
import { HttpSender } from '../../src/webhooks/delivery/http-sender.js';
import { waitFor } from '../helpers/wait-for.js';

const answer = (keepAliveSeconds: number) =>
  `HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: keep-alive\r\nKeep-Alive: timeout=${keepAliveSeconds}\r\n\r\nok`;
const closers: Array<() => void> = [];

afterEach(() => {
  while (closers.length) closers.pop()!();
});

/**
 * A receiver that answers the first request of each connection with 200 and keeps it open, and
 * closes it unanswered when `later` says so for a later request (as a receiver does whose idle
 * timer fires as the request arrives); `first: 'close'` closes every connection at its first request.
 */
async function receiver(options: { first: 'answer' | 'close'; keepAliveSeconds?: number }) {
  let connections = 0;
  let closedByClient = 0;
  const server = net.createServer((socket) => {
    connections++;
    socket.on('end', () => closedByClient++);
    let text = '';
    let seen = 0;
    socket.on('data', (chunk) => {
      text += chunk.toString('latin1');
      const requests = text.split('POST ').length - 1;
      for (; seen < requests; seen++) {
        if (seen === 0 && options.first === 'answer') socket.write(answer(options.keepAliveSeconds ?? 60));
        else socket.destroy();
      }
    });
    socket.on('error', () => {});
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  closers.push(() => server.close());
  const { port } = server.address() as net.AddressInfo;
  return { url: `http://127.0.0.1:${port}/hook`, connections: () => connections, closedByClient: () => closedByClient };
}

const post = (sender: HttpSender, url: string) => sender.post({ url, headers: { 'content-type': 'application/json' }, body: '{}' }, 5_000);

it('a kept-alive connection the receiver closed as it was reused is not the answer: the POST goes again on a new one', async () => {
  const hook = await receiver({ first: 'answer' });
  const sender = new HttpSender();
  closers.push(() => sender.close());
  expect((await post(sender, hook.url)).status).toBe(200);
  const second = await post(sender, hook.url);
  expect(second).toMatchObject({ status: 200, errorKind: null });
  expect(hook.connections()).toBe(2);
});

it("a new connection closed before any answer is the attempt's answer: reset, sent once", async () => {
  const hook = await receiver({ first: 'close' });
  const sender = new HttpSender();
  closers.push(() => sender.close());
  const result = await post(sender, hook.url);
  expect(result).toMatchObject({ status: null, errorKind: 'reset' });
  expect(hook.connections()).toBe(1);
});

it('an idle connection is closed a second before the receiver said it would close it (Keep-Alive: timeout=2)', async () => {
  const hook = await receiver({ first: 'answer', keepAliveSeconds: 2 });
  const sender = new HttpSender();
  closers.push(() => sender.close());
  expect((await post(sender, hook.url)).status).toBe(200);
  // Node's agent closes it after 1 s idle; the deadline only bounds a failure.
  await waitFor(() => hook.closedByClient() === 1, 'the sender to close the idle connection', 10_000);
  expect((await post(sender, hook.url)).status).toBe(200);
  expect(hook.connections()).toBe(2);
});
