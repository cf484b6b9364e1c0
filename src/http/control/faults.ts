// Fault injection through the control API: GET/POST/DELETE /_sandbox/faults. The grammar and its
// effects are in src/domain/fault-spec.ts and src/faults/injector.ts; docs/api-faults.md explains both.
import { Hono } from 'hono';
import { SandboxError } from '../../errors.js';
import type { AppDeps, AppEnv } from '../app-env.js';
import type { FaultRule } from '../../store/fault-rules-repo.js';
import { formatFaultRule } from '../../domain/fault-spec.js';
import type { FaultInjector } from '../../faults/injector.js';
import { validJson } from '../validation.js';
import { faultRuleSchema } from '../../contracts/faults.js';
import type { OpenApiRoute } from '../openapi/route.js';
import { controlRoute } from './control-route.js';
import { faultListView, faultsDeletedView, faultsSetView, toFaultRuleView, type FaultListView } from '../../views/fault-rule.js';
import { listView, wholeList } from '../../views/list.js';

/** A rule as the control API shows it, with its spec written back in the fault grammar. */
export const faultRuleAnswer = (rule: FaultRule) => toFaultRuleView(rule, formatFaultRule(rule));

/** Every rule in the list envelope, with the seed (the dashboard's Faults page shows the same). */
export function faultListAnswer(faults: FaultInjector): FaultListView {
  const { rules, seed } = faults.list();
  return { ...listView(wholeList(rules), faultRuleAnswer), seed };
}

/** GET /faults (seed and rules), POST /faults {spec?, seed?}, DELETE /faults and /faults/{id}. */
export function controlFaultRoutes(deps: AppDeps) {
  const app = new Hono<AppEnv>();
  const { faults } = deps.services;

  app.get('/faults', (c) => c.json(faultListAnswer(faults)));

  app.post('/faults', async (c) => {
    const body = await validJson(c, faultRuleSchema);
    if (body.spec === undefined && body.seed === undefined) {
      throw new SandboxError(
        'parameter_missing',
        'spec is required: send {"spec":"duplicate=2"} (or {"seed":42} to reseed random faults)',
        'spec',
      );
    }
    const added = body.spec === undefined ? [] : faults.add(body.spec);
    if (body.seed !== undefined) faults.setSeed(body.seed);
    return c.json({ added: added.map(faultRuleAnswer), ...faultListAnswer(faults) }, 201);
  });

  app.delete('/faults', (c) => c.json({ deleted: faults.remove() }));
  app.delete('/faults/:id', (c) => c.json({ deleted: faults.remove(c.req.param('id')) }));
  return app;
}

/** The routes of this module, for /openapi.json. */
export const faultsOpenApi: OpenApiRoute[] = [
  controlRoute('get', '/faults', 'The fault injection rules and their seed', 'the rules in the list envelope, with the seed', {
    responseSchema: faultListView,
  }),
  controlRoute('post', '/faults', 'Add a fault injection rule (and/or reseed)', 'the rules added and the full list', {
    body: faultRuleSchema,
    status: 201,
    responseSchema: faultsSetView,
    errors: ['resource_missing'],
  }),
  controlRoute('delete', '/faults', 'Remove every fault injection rule', 'how many rules were removed', {
    responseSchema: faultsDeletedView,
  }),
  controlRoute('delete', '/faults/:id', 'Remove one fault injection rule', 'how many rules were removed', {
    responseSchema: faultsDeletedView,
  }),
];
