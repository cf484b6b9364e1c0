// The scenario document: a file of fixtures/scenarios/ (--scenario FILE) and the body of
// POST /_sandbox/scenarios. services/scenarios.ts queues what it parses.
import * as z from 'zod';
import { parseOutcomeSpec, OUTCOME_SPECS, OUTCOME_VOCABULARY } from '../domain/outcome-spec.js';
import { API_FAULT_KINDS } from '../domain/api-faults.js';
import { FAULT_KINDS, parseFaultSpec } from '../webhooks/fault-rules.js';
import { faultSpecPattern, wordsPattern } from './patterns.js';

// Entry fields sit inside an array, where error messages cannot reach a field's description, so
// each check carries its own hint.
const hint = (text: string) => ({ error: text });
const minorUnits = hint('a whole number of minor units greater than 0, e.g. 1050 for bill_amt "10.50" EUR');
const uses = hint('a whole number of uses from 1 to 1000000 (default 1)');
const terminal = hint('a terminal number such as 1001');
const pattern = hint('the reference to match (1-64 characters): exact text, or a glob with * and ? such as "order-*"');
const merchant = hint('a merchant id such as mer_sandbox, or one made with POST /_sandbox/merchants (1-100 characters)');
const mop = hint('a payment mode such as CC, NB or UPICOLLECT, or a /v1/ method such as card (1-32 characters)');

/** The scenario document: fixtures/scenarios/*.json and the body of POST /_sandbox/scenarios. */
export const scenarioDocumentSchema = z
  .object({
    name: z.string().trim().min(1).max(200).optional().describe('a short name shown in GET /_sandbox/scenarios'),
    description: z.string().max(2000).optional().describe('what the scenario is for'),
    entries: z
      .array(
        z
          .object({
            terNO: z.number(terminal).int(terminal).positive(terminal).optional(),
            merchant: z.string(merchant).min(1, merchant).max(100, merchant).optional(),
            reference: z.string(pattern).min(1, pattern).max(64, pattern).optional(),
            amount: z.number(minorUnits).int(minorUnits).positive(minorUnits).optional(),
            mop: z.string(mop).min(1, mop).max(32, mop).optional(),
            outcome: z
              .string(hint(`an outcome word: ${OUTCOME_VOCABULARY}`))
              .refine((text) => parseOutcomeSpec(text) !== undefined, {
                error: (issue) => `outcome must be one of ${OUTCOME_VOCABULARY}; got ${JSON.stringify(issue.input)}`,
              })
              .meta({ pattern: wordsPattern(OUTCOME_SPECS, { caseless: true, trimmed: true }) }),
            times: z.number(uses).int(uses).min(1, uses).max(1_000_000, uses).default(1),
          })
          .strict(),
      )
      .max(10_000)
      .describe('a list of entries such as {"reference": "order-*", "outcome": "challenge:fail"} (empty only when faults is set)'),
    faults: z
      .string()
      .max(4000)
      .refine((spec) => !('problem' in parseFaultSpec(spec)), {
        error: (issue) => `faults ${(parseFaultSpec(String(issue.input)) as { problem: string }).problem}`,
      })
      .meta({ pattern: faultSpecPattern([...FAULT_KINDS, ...API_FAULT_KINDS]) })
      .optional()
      .describe(
        'fault rules in the one fault grammar, such as "route=POST /v1/payments:status=503,p=0.2;duplicate=1" (docs/api-faults.md)',
      ),
  })
  .strict()
  .refine((doc) => doc.entries.length > 0 || doc.faults !== undefined, {
    path: ['entries'],
    error:
      'entries must be a list of entries such as {"reference": "order-*", "outcome": "challenge:fail"}; it may be empty only when faults is set',
  });

/** A parsed scenario document. */
export type ScenarioDocument = z.output<typeof scenarioDocumentSchema>;
