// Whole-state control routes: POST /_sandbox/reset (of everything, or of one merchant's state),
// GET /_sandbox/export, POST /_sandbox/import.
// Mounted ahead of the app-wide 1 MiB body limit, because a snapshot is often larger; the import
// route sets its own limit.
import { Hono } from 'hono';
import * as z from 'zod';
import { bodyLimit } from './middleware/body-limit.js';
import { SandboxError } from '../errors.js';
import type { AppDeps, AppEnv } from './app-env.js';
import { readJson, readOptionalJson } from './validation.js';
import { validate } from '../contracts/validate.js';
import { toImportView, toMerchantResetView, toResetView } from '../views/state.js';

/** The largest snapshot POST /_sandbox/import takes. */
export const SNAPSHOT_LIMIT_BYTES = 256 * 1024 * 1024;

/** POST /_sandbox/reset body (optional). */
export const resetSchema = z
  .object({
    merchant: z
      .string()
      .min(1)
      .max(100)
      .optional()
      .describe('a merchant id such as mer_sandbox: empty only its state and leave every other merchant as it is'),
  })
  .strict();

/** The reset, export and import routes. */
export function stateRoutes(deps: AppDeps) {
  const app = new Hono<AppEnv>();
  const { snapshot } = deps.services;
  app.post('/reset', async (c) => {
    const { merchant } = validate(resetSchema, await readOptionalJson(c));
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
