// The scenario queue over the control API: GET /_sandbox/scenarios lists it, POST appends a
// scenario document's entries, DELETE empties it.
import { Hono } from 'hono';
import { scenarioDocumentSchema } from '../contracts/scenario-file.js';
import type { AppDeps, AppEnv } from './app-env.js';
import { readJson } from './validation.js';
import { validate } from '../contracts/validate.js';
import { listView, wholeList } from '../views/list.js';
import { toScenarioEntryView } from '../views/scenario-entry.js';

/** GET, POST and DELETE /_sandbox/scenarios. */
export function scenarioRoutes(deps: AppDeps) {
  const app = new Hono<AppEnv>();
  const { scenarios } = deps.services;
  const list = () => listView(wholeList(scenarios.list()), toScenarioEntryView);

  app.get('/scenarios', (c) => c.json(list()));

  app.post('/scenarios', async (c) => {
    const added = scenarios.add(validate(scenarioDocumentSchema, await readJson(c)));
    return c.json({ added, ...list() }, 201);
  });

  app.delete('/scenarios', (c) => c.json({ removed: scenarios.clear(), ...listView(wholeList([]), toScenarioEntryView) }));

  return app;
}
