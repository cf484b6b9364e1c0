// A minimal shop on node:http: POST /orders opens an order and a hosted checkout session for it,
// GET /orders/:id shows it, GET /checkout/return is where the customer comes back (it shows a
// "confirming" page and changes nothing: the webhook is the authority), POST /webhooks takes the
// gateway's signed events.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Orders } from './orders.js';
import { WebhookHandler } from './webhooks.js';

/** Where the gateway is and the shop's credentials (from the environment in a real deployment). */
export interface ShopConfig {
  gatewayUrl: string;
  apiKey: string;
  webhookSecret: string;
}

function readBody(req: http.IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

function send(res: http.ServerResponse, status: number, body: unknown) {
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
}

/** Starts the shop on 127.0.0.1 and a free port. */
export async function startShop(config: ShopConfig) {
  const orders = new Orders();
  const webhooks = new WebhookHandler(orders, config.webhookSecret);
  let baseUrl = '';

  /** Asks the gateway for a hosted checkout page for the order. */
  async function createCheckout(orderId: string, amount: number, currency: string) {
    const res = await fetch(`${config.gatewayUrl}/v1/checkout/sessions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${config.apiKey}`, 'content-type': 'application/json', 'idempotency-key': `checkout-${orderId}` },
      body: JSON.stringify({
        amount,
        currency,
        methods: ['card'],
        reference: orderId,
        return_url: `${baseUrl}/checkout/return`,
        webhook_url: `${baseUrl}/webhooks`,
      }),
    });
    const body = (await res.json()) as { id: string; url: string; error?: { message: string } };
    if (!res.ok) throw new Error(`the gateway refused the checkout session: ${body.error?.message ?? res.status}`);
    return body;
  }

  const server = http.createServer(async (req, res) => {
    try {
      const url = new URL(req.url ?? '/', baseUrl);
      if (req.method === 'POST' && url.pathname === '/orders') {
        const input = JSON.parse((await readBody(req)) || '{}') as { amount?: number; currency?: string };
        if (!Number.isInteger(input.amount) || input.amount! <= 0)
          return send(res, 400, { error: 'amount must be a whole number of cents above 0' });
        const order = orders.create(input.amount!, input.currency ?? 'EUR');
        const session = await createCheckout(order.id, order.amount, order.currency);
        order.sessionId = session.id;
        return send(res, 201, { order_id: order.id, checkout_url: session.url });
      }
      const orderPath = /^\/orders\/([\w-]+)$/.exec(url.pathname);
      if (req.method === 'GET' && orderPath) {
        const order = orders.get(orderPath[1]!);
        return order ? send(res, 200, order) : send(res, 404, { error: 'no such order' });
      }
      if (req.method === 'GET' && url.pathname === '/checkout/return') {
        // Never trust ?status= here: anyone can type it. Show a waiting page; the webhook decides.
        res
          .writeHead(200, { 'content-type': 'text/html; charset=utf-8' })
          .end('<!DOCTYPE html><p>Thank you! We are confirming your payment.</p>');
        return;
      }
      if (req.method === 'POST' && url.pathname === '/webhooks') {
        const result = webhooks.handle(await readBody(req), req.headers['x-sandbox-signature'] as string | undefined);
        return send(res, result.status, { outcome: result.outcome });
      }
      send(res, 404, { error: 'not found' });
    } catch (err) {
      send(res, 500, { error: err instanceof Error ? err.message : String(err) });
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url: baseUrl,
    orders,
    webhooks,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/** A running shop. */
export type Shop = Awaited<ReturnType<typeof startShop>>;
