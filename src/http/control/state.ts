// Whole-state control routes: POST /_sandbox/reset (of everything, or of one merchant's state),
// GET /_sandbox/export, POST /_sandbox/import.
// Mounted ahead of the app-wide 1 MiB body limit, because a snapshot is often larger; the import
// route sets its own limit.
import { Hono } from 'hono';
import { bodyLimit } from '../middleware/body-limit.js';
import { SandboxError } from '../../errors.js';
import type { AppDeps, AppEnv } from '../app-env.js';
import { readJson, validOptionalJson } from '../validation.js';
import { resetSchema, snapshotSchema } from '../../contracts/state.js';
import { importView, merchantResetView, resetView, toImportView, toMerchantResetView, toResetView } from '../../views/state.js';
import * as z from 'zod';
import type { OpenApiRoute } from '../openapi/route.js';
import { controlRoute } from './control-route.js';

/** The largest snapshot POST /_sandbox/import takes. */
export const SNAPSHOT_LIMIT_BYTES = 256 * 1024 * 1024;

/** The reset, export and import routes. */
export function stateRoutes(deps: AppDeps) {
  const app = new Hono<AppEnv>();
  const { snapshot } = deps.services;
  app.post('/reset', async (c) => {
    const { merchant } = await validOptionalJson(c, resetSchema);
    if (merchant !== undefined) {
      const removed = await deps.services.merchants.reset(merchant);
      deps.wake();
      return c.json(toMerchantResetView(merchant, removed));
    }
    const tables = await snapshot.reset();
    deps.wake();
    return c.json(toResetView(tables));
  });

  app.get('/export', (c) => {
    const doc = snapshot.export();
    c.header('Content-Disposition', `attachment; filename="sandbox-${doc.exported_at.replace(/[:.]/g, '-')}.json"`);
    return c.json(doc);
  });

  app.post(
    '/import',
    bodyLimit({
      maxSize: SNAPSHOT_LIMIT_BYTES,
      onError: () => {
        throw new SandboxError(
          'body_too_large',
          `the snapshot is larger than ${SNAPSHOT_LIMIT_BYTES / 1024 / 1024} MiB; trim old deliveries from it`,
        );
      },
    }),
    async (c) => {
      const tables = await snapshot.import(await readJson(c));
      deps.wake();
      return c.json(toImportView(tables));
    },
  );

  return app;
}

/** The routes of this module, for /openapi.json. */
export const stateOpenApi: OpenApiRoute[] = [
  controlRoute(
    'post',
    '/reset',
    'Empty every table except the seeded credentials (reseeded; created merchants go) and reload --scenario; with {"merchant": id}, empty only that merchant\'s state',
    'how many rows each table kept; with merchant, how many rows of each table went',
    {
      body: resetSchema,
      bodyOptional: true,
      responseSchema: () => z.union([resetView(), merchantResetView()]),
      errors: ['resource_missing'],
    },
  ),
  controlRoute('get', '/export', 'The whole state as a snapshot document', 'the snapshot (also a download)', {
    responseSchema: () => z.record(z.string(), z.unknown()).describe('the snapshot document POST /_sandbox/import takes'),
  }),
  controlRoute(
    'post',
    '/import',
    'Replace the whole state with a snapshot document (up to 256 MiB) in one transaction',
    'how many rows each table holds now',
    { body: snapshotSchema, responseSchema: importView },
  ),
];
