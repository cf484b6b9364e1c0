// POST /api/s2s (spec §4.1) and the authstatus URL it hands out (spec §2.2).
import { Hono } from 'hono';
import { formatDecimalAmount } from '../domain/money.js';
import { statusText } from '../domain/order-status.js';
import { SandboxError } from '../errors.js';
import type { S2SCreated } from '../services/s2s-payments.js';
import type { Transaction } from '../store/transactions-repo.js';
import type { AppEnv, AppDeps } from './app.js';
import { clientIp } from './middleware/client-ip.js';
import { s2sPaymentSchema } from '../contracts/s2s-schema.js';
import { authenticateTerminal } from './terminal-auth.js';
import { readJson } from './validation.js';
import { validate } from '../contracts/validate.js';
import { formatTdate } from './tdate.js';

/** The authstatus answer: the transaction as it is now. */
export function statusView(t: Transaction) {
  return {
    transID: t.transId,
    reference: t.reference,
    order_status: String(t.orderStatus),
    status: statusText(t.orderStatus),
    response: t.response,
    bill_amt: formatDecimalAmount(t.amount, t.currency),
    bill_currency: t.currency,
    tdate: formatTdate(t.updatedAt, true),
  };
}

/** The spec §2.2 answer: exactly these fields, all strings, in the gateway's order. */
export function s2sResponse(deps: AppDeps, created: S2SCreated) {
  const t = created.transaction;
  const { transID, reference, order_status, status, response, bill_amt, bill_currency } = statusView(t);
  const authurl = created.challenge ? deps.services.auth.url(created.challenge.token) : '';
  // authdata is the 3-D Secure ACS data, so only card challenges carry it.
  const threeDs = created.challenge?.kind === 'otp';
  return {
    transID,
    reference,
    order_status,
    status,
    response,
    bill_amt,
    bill_currency,
    mop: t.brand,
    ccno: t.ccno ?? '',
    tdate: formatTdate(t.createdAt, true),
    authurl,
    authstatus: `${deps.services.publicUrl()}/api/s2s/status/${t.statusToken}`,
    authdata: threeDs
      ? Buffer.from(JSON.stringify({ transID: t.transId, messageVersion: '2.2.0', acsURL: authurl, challengeWindowSize: '05' })).toString('base64')
      : '',
  };
}

/** The /api/s2s routes. */
export function s2sRoutes(deps: AppDeps) {
  const app = new Hono<AppEnv>();
  const { services } = deps;

  app.post('/api/s2s', async (c) => {
    const body = await readJson(c);
    const input = validate(s2sPaymentSchema, body);
    const terminal = authenticateTerminal(services, input.terNO, input.public_key);
    const created = services.s2s.create(input, terminal, { billIp: clientIp(c), forcedOutcome: deps.forcedOutcome(c, 's2s', input, terminal) });
    return c.json(s2sResponse(deps, created));
  });

  app.get('/api/s2s/status/:token', (c) => {
    const transaction = services.s2s.byStatusToken(c.req.param('token'));
    if (!transaction) throw new SandboxError('resource_missing', 'no transaction has this authstatus URL; use the authstatus value from the payment response', 'token');
    return c.json(statusView(transaction));
  });

  return app;
}
