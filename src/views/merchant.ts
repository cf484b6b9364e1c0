// A merchant as the control API shows it: its first terminal and API key at the top level (what a
// test worker needs, ready to use), every terminal and key below.
import * as z from 'zod';
import { lazySchema } from '../lazy-schema.js';
import type { Merchant, Terminal } from '../store/credentials-repo.js';
import { listOf } from './list.js';

const terminalView = lazySchema(() =>
  z.object({
    terNO: z.number().int().describe('the terminal number the S2S API takes'),
    public_key: z.string().describe('pk_test_...: the terminal public_key'),
    private_key: z.string().describe('pv_test_...: the key of the encrypted S2S body'),
  }),
);

/** A merchant with its credentials. */
export const merchantView = lazySchema(() =>
  z
    .object({
      object: z.literal('merchant'),
      id: z.string(),
      name: z.string(),
      terNO: z.number().int().nullable().describe('its first terminal'),
      public_key: z.string().nullable().describe("its first terminal's public_key"),
      private_key: z.string().nullable().describe("its first terminal's private_key"),
      api_key: z.string().nullable().describe('sk_test_...: its first /v1/ API key'),
      webhook_secret: z.string().describe('whsec_...: signs the webhooks sent for it'),
      currency: z.string().describe('the currency the sandbox invents objects in for it (sandbox trigger)'),
      seeded: z.boolean().describe('true for a merchant of the fixtures, false for one made on demand'),
      terminals: z.array(terminalView()),
      api_keys: z.array(z.string()),
    })
    .meta({ id: 'Merchant' }),
);

/** The merchant's TS type. */
export type MerchantView = z.infer<ReturnType<typeof merchantView>>;

/** GET /_sandbox/merchants. */
export const merchantListView = listOf(merchantView);

/** The merchant list's TS type. */
export type MerchantListView = z.infer<ReturnType<typeof merchantListView>>;

/** DELETE /_sandbox/merchants/{id}: the merchant is gone, with how many rows of each table went. */
export const deletedMerchantView = lazySchema(() =>
  z.object({
    id: z.string(),
    object: z.literal('merchant'),
    deleted: z.literal(true),
    removed: z.record(z.string(), z.number().int()).describe('how many rows were removed from each table, by table name'),
  }),
);

/** The delete answer's TS type. */
export type DeletedMerchantView = z.infer<ReturnType<typeof deletedMerchantView>>;

/** The merchant as the control API shows it. */
export function toMerchantView(m: Merchant & { apiKeys: string[]; terminals: Array<Omit<Terminal, 'merchantId'>> }): MerchantView {
  const first = m.terminals[0];
  return {
    object: 'merchant',
    id: m.id,
    name: m.name,
    terNO: first?.terNo ?? null,
    public_key: first?.publicKey ?? null,
    private_key: first?.privateKey ?? null,
    api_key: m.apiKeys[0] ?? null,
    webhook_secret: m.webhookSecret,
    currency: m.currency,
    seeded: m.createdBy === 'fixtures',
    terminals: m.terminals.map((t) => ({ terNO: t.terNo, public_key: t.publicKey, private_key: t.privateKey })),
    api_keys: m.apiKeys,
  };
}

/** The delete answer. */
export function toDeletedMerchantView(id: string, removed: Record<string, number>): DeletedMerchantView {
  return { id, object: 'merchant', deleted: true, removed };
}
