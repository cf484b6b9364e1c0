// One entry of the scenario queue as the control API shows it, and the queue as a list.
import * as z from 'zod';
import { lazySchema } from '../lazy-schema.js';
import type { ScenarioEntry } from '../store/scenarios-repo.js';
import { listOf } from './list.js';

/** A scenario queue entry. */
export const scenarioEntryView = lazySchema(() =>
  z.object({
    id: z.number().int(),
    scenario: z.string().describe('the name of the scenario document it came from'),
    terNO: z.number().int().nullable().describe('matches only this terminal; null for any'),
    merchant: z.string().nullable().describe("matches only this merchant's payments; null for any"),
    reference: z.string().nullable().describe('matches this reference (a glob with * and ?); null for any'),
    amount: z.number().int().nullable().describe('matches this amount in minor units; null for any'),
    mop: z.string().nullable().describe('matches this method of payment; null for any'),
    outcome: z.string().describe('the outcome word the matching payment gets'),
    times: z.number().int().describe('how many payments it applies to'),
    used: z.number().int(),
    remaining: z.number().int(),
  }),
);

/** The entry's TS type. */
export type ScenarioEntryView = z.infer<ReturnType<typeof scenarioEntryView>>;

/** GET /_sandbox/scenarios: the queue in the list envelope. */
export const scenarioListView = listOf(scenarioEntryView);

/** One queue entry as the control API shows it. */
export function toScenarioEntryView(e: ScenarioEntry): ScenarioEntryView {
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
