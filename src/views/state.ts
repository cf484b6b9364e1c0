// The answers of the whole-state control routes: POST /_sandbox/reset and POST /_sandbox/import.
import * as z from 'zod';
import { lazySchema } from '../lazy-schema.js';

const tables = lazySchema(() => z.record(z.string(), z.number().int()).describe('how many rows each table holds now, by table name'));

/** POST /_sandbox/reset: every table emptied but the credentials (reseeded). */
export const resetView = lazySchema(() => z.object({ reset: z.literal(true), tables: tables() }));

/** The reset answer's TS type. */
export type ResetView = z.infer<ReturnType<typeof resetView>>;

/** POST /_sandbox/reset {"merchant": id}: that merchant's rows removed, per table; the merchant stays. */
export const merchantResetView = lazySchema(() =>
  z.object({
    reset: z.literal(true),
    merchant: z.string(),
    removed: z.record(z.string(), z.number().int()).describe('how many rows were removed from each table, by table name'),
  }),
);

/** The scoped reset answer's TS type. */
export type MerchantResetView = z.infer<ReturnType<typeof merchantResetView>>;

/** The scoped reset answer. */
export function toMerchantResetView(merchant: string, removed: Record<string, number>): MerchantResetView {
  return { reset: true, merchant, removed };
}

/** POST /_sandbox/import: the snapshot replaced the whole state. */
export const importView = lazySchema(() => z.object({ imported: z.literal(true), tables: tables() }));

/** The import answer's TS type. */
export type ImportView = z.infer<ReturnType<typeof importView>>;

/** The reset answer. */
export function toResetView(counts: Record<string, number>): ResetView {
  return { reset: true, tables: counts };
}

/** The import answer. */
export function toImportView(counts: Record<string, number>): ImportView {
  return { imported: true, tables: counts };
}
