// The scenario queue over the control API: GET /_sandbox/scenarios lists it, POST appends a
// scenario document's entries, DELETE empties it.
import { Hono } from 'hono';
import { scenarioDocumentSchema } from '../services/scenarios.js';
import type { ScenarioEntry } from '../store/scenarios-repo.js';
import type { AppDeps, AppEnv } from './app.js';
import { readJson } from './validation.js';
import { validate } from '../contracts/validate.js';

/** One queue entry as the control API shows it. */
export function scenarioEntryView(e: ScenarioEntry) {
  return {
    id: e.id,
    scenario: e.scenario,
    terNO: e.terNo,
    merchant: e.merchantId,
    reference: e.reference,
    amount: e.amount,
    mop: e.mop,
    outcome: e.outcome,
    times: e.times,
    used: e.used,
    remaining: e.times - e.used,
  };
}

/** GET, POST and DELETE /_sandbox/scenarios. */
export function scenarioRoutes(deps: AppDeps) {
  const app = new Hono<AppEnv>();
  const { scenarios } = deps.services;
  const list = () => ({ items: scenarios.list().map(scenarioEntryView) });

  app.get('/scenarios', (c) => c.json(list()));

  app.post('/scenarios', async (c) => {
    const added = scenarios.add(validate(scenarioDocumentSchema, await readJson(c)));
    return c.json({ added, ...list() }, 201);
  });

  app.delete('/scenarios', (c) => c.json({ removed: scenarios.clear(), items: [] }));

  return app;
}
