// Fault injection through the control API: GET/POST/DELETE /_sandbox/faults. The grammar and its
// effects are in src/domain/fault-spec.ts and src/webhooks/faults.ts; docs/api-faults.md explains both.
import { Hono } from 'hono';
import * as z from 'zod';
import { SandboxError } from '../errors.js';
import type { AppDeps, AppEnv } from './app-env.js';
import { faultRuleView } from '../webhooks/faults.js';
import { readJson } from './validation.js';
import { validate } from '../contracts/validate.js';
import { faultSpecPattern } from '../contracts/patterns.js';
import { API_FAULT_KINDS } from '../domain/api-faults.js';
import { FAULT_KINDS } from '../domain/fault-spec.js';

/** The shape of a fault spec, for the document (the parser checks the rest). */
const FAULT_SPEC_PATTERN = faultSpecPattern([...FAULT_KINDS, ...API_FAULT_KINDS]);

/** POST /_sandbox/faults body. */
export const setSchema = z
  .object({
    spec: z
      .string()
      .meta({ pattern: FAULT_SPEC_PATTERN })
      .optional()
      .describe(
        'a fault spec such as "duplicate=2", "url=http://127.0.0.1:3000/hook:fail-first=2" or "route=POST /v1/payments:status=503,p=0.2" (see docs/api-faults.md)',
      ),
    seed: z.number().int().min(0).max(0xffffffff).optional().describe('a whole number from 0 to 4294967295'),
  })
  .strict();

/** GET /faults (seed and rules), POST /faults {spec?, seed?}, DELETE /faults and /faults/{id}. */
export function controlFaultRoutes(deps: AppDeps) {
  const app = new Hono<AppEnv>();
  const { faults } = deps.services;

  app.get('/faults', (c) => c.json(faults.list()));

  app.post('/faults', async (c) => {
    const body = validate(setSchema, await readJson(c));
    if (body.spec === undefined && body.seed === undefined) {
      throw new SandboxError(
        'parameter_missing',
        'spec is required: send {"spec":"duplicate=2"} (or {"seed":42} to reseed random faults)',
        'spec',
      );
    }
    const added = body.spec === undefined ? [] : faults.add(body.spec);
    if (body.seed !== undefined) faults.setSeed(body.seed);
    return c.json({ added: added.map(faultRuleView), ...faults.list() }, 201);
  });

  app.delete('/faults', (c) => c.json({ deleted: faults.remove() }));
  app.delete('/faults/:id', (c) => c.json({ deleted: faults.remove(c.req.param('id')) }));
  return app;
}
