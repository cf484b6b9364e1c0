// The whole-state requests of the control API: POST /_sandbox/reset (all, or one merchant) and
// the snapshot document POST /_sandbox/import takes (and sandbox export writes).
import * as z from 'zod';
import { lazySchema } from '../lazy-schema.js';

/** POST /_sandbox/reset body (optional). */
export const resetSchema = lazySchema(() =>
  z
    .object({
      merchant: z
        .string()
        .min(1)
        .max(100)
        .optional()
        .describe('a merchant id such as mer_sandbox: empty only its state and leave every other merchant as it is'),
    })
    .strict(),
);

/** The `format` of every snapshot document. */
export const SNAPSHOT_FORMAT = 'paysandbox.snapshot';
/** The document layout version; bumped only when the layout (not the schema) changes. */
export const SNAPSHOT_VERSION = 1;

// Cells are checked against their column's type by checkTypes, so the 400 can name the column.
const cellSchema = lazySchema(() =>
  z.unknown().describe('a value of the column\'s type: a string, a number, null, or {"$base64": "..."} for binary data'),
);

/** A snapshot document (POST /_sandbox/import). */
export const snapshotSchema = lazySchema(() =>
  z.object({
    format: z.literal(SNAPSHOT_FORMAT).describe(`"${SNAPSHOT_FORMAT}" (a file written by sandbox export)`),
    version: z.literal(SNAPSHOT_VERSION).describe(`${SNAPSHOT_VERSION}, the snapshot layout this sandbox reads`),
    schema_version: z.number().int().nonnegative().describe('the migration number of the sandbox that exported it'),
    exported_at: z.string().optional(),
    tables: z
      .record(z.string(), z.object({ columns: z.array(z.string()).min(1), rows: z.array(z.array(cellSchema())) }).strict())
      .describe('an object of tables, each {"columns": [...], "rows": [[...], ...]}'),
  }),
);
