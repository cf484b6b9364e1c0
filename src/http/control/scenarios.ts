// The scenario queue over the control API: GET /_sandbox/scenarios lists it, POST appends a
// scenario document's entries, DELETE empties it.
import { Hono } from 'hono';
import { scenarioDocumentSchema } from '../../contracts/scenario-file.js';
import type { AppDeps, AppEnv } from '../app-env.js';
import { validJson } from '../validation.js';
import { listView, wholeList } from '../../views/list.js';
import { scenarioListView, toScenarioEntryView } from '../../views/scenario-entry.js';
import * as z from 'zod';
import type { OpenApiRoute } from '../openapi/route.js';
import { controlRoute } from './control-route.js';

/** GET, POST and DELETE /_sandbox/scenarios. */
export function scenarioRoutes(deps: AppDeps) {
  const app = new Hono<AppEnv>();
  const { scenarios } = deps.services;
  const list = () => listView(wholeList(scenarios.list()), toScenarioEntryView);

  app.get('/scenarios', (c) => c.json(list()));

  app.post('/scenarios', async (c) => {
    const added = scenarios.add(await validJson(c, scenarioDocumentSchema));
    return c.json({ added, ...list() }, 201);
  });

  app.delete('/scenarios', (c) => c.json({ removed: scenarios.clear(), ...listView(wholeList([]), toScenarioEntryView) }));

  return app;
}

/** The routes of this module, for /openapi.json. */
export const scenariosOpenApi: OpenApiRoute[] = [
  controlRoute('get', '/scenarios', 'The scenario queue', 'the queued scenario entries in the list envelope', {
    responseSchema: scenarioListView,
  }),
  controlRoute('post', '/scenarios', 'Append a scenario document to the queue', 'the entries added and the queue', {
    body: scenarioDocumentSchema,
    status: 201,
    responseSchema: () => scenarioListView().extend({ added: z.number().int() }),
    errors: ['resource_missing'],
  }),
  controlRoute('delete', '/scenarios', 'Empty the scenario queue', 'how many entries were removed, and the empty queue', {
    responseSchema: () => scenarioListView().extend({ removed: z.number().int() }),
  }),
];
