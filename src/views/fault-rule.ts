// A fault rule (webhook or API side) as the control API shows it, and the fault list (the rules and the seed).
import * as z from 'zod';
import { lazySchema } from '../lazy-schema.js';
import type { FaultRule } from '../store/fault-rules-repo.js';
import { FAULT_SCOPES, FAULT_SOURCES } from '../domain/vocabularies.js';
import { listOf } from './list.js';
import { iso, isoTime } from './time.js';

/** A fault rule. */
export const faultRuleView = lazySchema(() =>
  z
    .object({
      id: z.string(),
      scope: z.enum(FAULT_SCOPES),
      target: z.string().nullable().describe('the endpoint id, URL or route pattern; null for global rules'),
      merchant: z.string().nullable().describe('the merchant the rule is aimed at (merchant=); null for every merchant'),
      fault: z.string().describe('the fault kind, e.g. duplicate, fail-first, timeout'),
      value: z.string().nullable(),
      probability: z.number().nullable().describe('the chance (p=) that an API rule fires; null: always'),
      spec: z.string().describe('the rule in the fault grammar, as --faults takes it'),
      source: z.enum(FAULT_SOURCES).describe('flag (--faults at start), api (the control API) or scenario (a scenario file or document)'),
      created_at: isoTime,
    })
    .meta({ id: 'FaultRule' }),
);

/** The fault rule's TS type. */
export type FaultRuleView = z.infer<ReturnType<typeof faultRuleView>>;

/** GET /_sandbox/faults: the rules in the list envelope, with the seed of the random faults. */
export const faultListView = lazySchema(() =>
  listOf(faultRuleView)().extend({ seed: z.number().int().describe('the seed of the random faults') }),
);

/** The fault list's TS type. */
export type FaultListView = z.infer<ReturnType<typeof faultListView>>;

/** A rule as the control API shows it; `spec` is the rule written back in the fault grammar. */
export function toFaultRuleView(rule: FaultRule, spec: string): FaultRuleView {
  return {
    id: rule.id,
    scope: rule.scope,
    target: rule.scope === 'global' ? null : rule.target,
    merchant: rule.merchant || null,
    fault: rule.fault,
    value: rule.value,
    probability: rule.probability,
    spec,
    source: rule.source,
    created_at: iso(rule.createdAt),
  };
}

/** POST /_sandbox/faults: the rules added, with the whole list after. */
export const faultsSetView = lazySchema(() => faultListView().extend({ added: z.array(faultRuleView()) }));

/** The set answer's TS type. */
export type FaultsSetView = z.infer<ReturnType<typeof faultsSetView>>;

/** DELETE /_sandbox/faults[/{id}]: how many rules were deleted. */
export const faultsDeletedView = lazySchema(() => z.object({ deleted: z.number().int() }));

/** The delete answer's TS type. */
export type FaultsDeletedView = z.infer<ReturnType<typeof faultsDeletedView>>;
