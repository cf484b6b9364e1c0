// POST /v1/tokens and GET /v1/tokens/{id}: save a card once, pay with tok_... later.
import { Hono } from 'hono';
import type { AppDeps, AppEnv } from './app-env.js';
import { currentMerchant } from './middleware/bearer-auth.js';
import type { OpenApiRoute } from './openapi/route.js';
import { createTokenSchema } from '../contracts/v1-tokens.js';
import { toTokenView, tokenView } from '../views/token.js';
import { validJson } from './validation.js';

/** The token routes, for /openapi.json. */
export const tokensOpenApi: OpenApiRoute[] = [
  {
    method: 'post',
    path: '/v1/tokens',
    summary: 'Save a card and get a reusable tok_... (brand, last4, expiry; never the number again)',
    tag: 'Tokens',
    auth: 'bearer',
    body: createTokenSchema,
    response: 'the token',
    responseSchema: tokenView,
    errors: ['parameter_unknown'],
  },
  {
    method: 'get',
    path: '/v1/tokens/:id',
    summary: 'Show a token: one of yours or a predefined test token such as tok_visa',
    tag: 'Tokens',
    auth: 'bearer',
    response: 'the token',
    responseSchema: tokenView,
  },
];

/** The /v1/tokens routes (behind bearerAuth). */
export function tokenRoutes(deps: AppDeps) {
  const app = new Hono<AppEnv>();
  const { tokens } = deps.services;

  app.post('/v1/tokens', async (c) => {
    const input = await validJson(c, createTokenSchema);
    return c.json(toTokenView(tokens.create(currentMerchant(c).id, input.card)));
  });

  app.get('/v1/tokens/:id', (c) => c.json(toTokenView(tokens.get(currentMerchant(c).id, c.req.param('id')))));

  return app;
}
