// POST /api/s2s (spec §4.1) and the authstatus URL it hands out (spec §2.2).
import { Hono } from 'hono';
import { SandboxError } from '../errors.js';
import type { S2SCreated } from '../services/s2s-payments.js';
import type { AppEnv, AppDeps } from './app-env.js';
import { clientIp } from './middleware/client-ip.js';
import { s2sPaymentSchema } from '../contracts/s2s-schema.js';
import { authenticateTerminal } from './terminal-auth.js';
import { validJson } from './validation.js';
import { validatedInput } from './prevalidation.js';
import { s2sPaymentView, s2sStatusView, toS2SPaymentView, toS2SStatusView, type S2SPaymentView } from '../views/s2s.js';
import type { OpenApiRoute } from './openapi/route.js';

/** The spec §2.2 answer of a created payment, with its challenge page and authstatus URL. */
export function s2sResponse(deps: AppDeps, created: S2SCreated): S2SPaymentView {
  const t = created.transaction;
  return toS2SPaymentView(t, {
    authurl: created.challenge ? deps.services.auth.url(created.challenge.token) : '',
    authstatus: `${deps.services.publicUrl()}/api/s2s/status/${t.statusToken}`,
    threeDs: created.challenge?.kind === 'otp',
  });
}

/** The /api/s2s routes. */
export function s2sRoutes(deps: AppDeps) {
  const app = new Hono<AppEnv>();
  const { services } = deps;

  app.post('/api/s2s', async (c) => {
    const input = validatedInput(c, 'POST /api/s2s', s2sPaymentSchema) ?? (await validJson(c, s2sPaymentSchema));
    const terminal = authenticateTerminal(services, input.terNO, input.public_key);
    // A body the front thread did not validate was read after an await: tie the writes to this answer again (durable-answer.ts).
    const created = services.batch.within(c.get('answer'), () =>
      services.s2s.create(input, terminal, { billIp: clientIp(c), forcedScript: deps.forcedScript(c, 's2s', input, terminal) }),
    );
    return c.json(s2sResponse(deps, created));
  });

  app.get('/api/s2s/status/:token', (c) => {
    const transaction = services.s2s.byStatusToken(c.req.param('token'));
    if (!transaction)
      throw new SandboxError(
        'resource_missing',
        'no transaction has this authstatus URL; use the authstatus value from the payment response',
        'token',
      );
    return c.json(toS2SStatusView(transaction));
  });

  return app;
}

/** The routes of this module, for /openapi.json. */
export const s2sOpenApi: OpenApiRoute[] = [
  {
    method: 'post',
    path: '/api/s2s',
    tag: 'S2S',
    auth: 'terminal',
    summary: 'Create a server-to-server card or alternative payment (spec §4.1)',
    body: s2sPaymentSchema,
    response: 'the spec §2.2 fields: transID, order_status, status, authurl when the customer must authenticate, authstatus, ...',
    responseSchema: s2sPaymentView,
    errors: ['invalid_credentials', 'reference_in_use'],
  },
  {
    method: 'get',
    path: '/api/s2s/status/:token',
    tag: 'S2S',
    auth: 'none',
    summary: 'The authstatus URL: the transaction status as it is now',
    response: 'transID, reference, order_status, status, response, bill_amt, bill_currency, tdate',
    responseSchema: s2sStatusView,
  },
];
