// A token's scripted future in the control API: POST /_sandbox/tokens/{id}/outcomes queues what the
// next charges on it do, GET shows what is left, DELETE drops it. Scoped to the token's merchant,
// named in the body or query (default: the first merchant of the fixtures), as a merchant's own
// tests would script only their own tokens.
import { Hono } from 'hono';
import { scriptTokenSchema, tokenOutcomesQuery } from '../../contracts/token-outcomes.js';
import { toTokenOutcomesView, tokenOutcomesView } from '../../views/token-outcomes.js';
import type { AppDeps, AppEnv } from '../app-env.js';
import type { OpenApiRoute } from '../openapi/route.js';
import { validateQuery, validJson } from '../validation.js';
import { controlRoute } from './control-route.js';

/** /tokens/{id}/outcomes under /_sandbox. */
export function controlTokenRoutes(deps: AppDeps) {
  const app = new Hono<AppEnv>();
  const { services } = deps;
  app.post('/tokens/:id/outcomes', async (c) => {
    const body = await validJson(c, scriptTokenSchema);
    const merchant = services.tokens.scriptMerchant(body.merchant);
    const id = c.req.param('id');
    return c.json(toTokenOutcomesView(id, merchant, services.tokens.script(merchant, id, body.outcomes)));
  });
  app.get('/tokens/:id/outcomes', (c) => {
    const merchant = services.tokens.scriptMerchant(validateQuery(c, tokenOutcomesQuery).merchant);
    const id = c.req.param('id');
    return c.json(toTokenOutcomesView(id, merchant, services.tokens.scripted(merchant, id)));
  });
  app.delete('/tokens/:id/outcomes', (c) => {
    const merchant = services.tokens.scriptMerchant(validateQuery(c, tokenOutcomesQuery).merchant);
    const id = c.req.param('id');
    return c.json(toTokenOutcomesView(id, merchant, [], services.tokens.clearScript(merchant, id)));
  });
  return app;
}

/** The routes of this module, for /openapi.json. */
export const tokenScriptsOpenApi: OpenApiRoute[] = [
  controlRoute(
    'post',
    '/tokens/:id/outcomes',
    "Script what the next charges on a merchant's own token do, one each (appended to what waits)",
    'what now waits',
    { body: scriptTokenSchema, responseSchema: tokenOutcomesView, errors: ['resource_missing', 'parameter_invalid'] },
  ),
  controlRoute('get', '/tokens/:id/outcomes', "What is left of a token's script", 'what waits', {
    query: tokenOutcomesQuery,
    responseSchema: tokenOutcomesView,
    errors: ['resource_missing'],
  }),
  controlRoute('delete', '/tokens/:id/outcomes', "Drop a token's script: its card's own outcome applies again", 'nothing waits', {
    query: tokenOutcomesQuery,
    responseSchema: tokenOutcomesView,
    errors: ['resource_missing'],
  }),
];
