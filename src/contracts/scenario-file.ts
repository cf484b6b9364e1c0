// The scenario document (fixtures/scenarios/*.json, --scenario FILE and the body of POST
// /_sandbox/scenarios) and the reading of a scenario file: below the services, so config-free
// callers (the services' start and reset) share one reader. The shipped names: shipped-scenarios.ts.
import { existsSync, readFileSync } from 'node:fs';
import { basename, resolve } from 'node:path';
import * as z from 'zod';
import { lazySchema } from '../lazy-schema.js';
import { API_FAULT_KINDS } from '../domain/api-faults.js';
import { FAULT_KINDS, parseFaultSpec } from '../domain/fault-spec.js';
import { OUTCOME_SPECS, OUTCOME_VOCABULARY, parseOutcomeSpec } from '../domain/outcome-spec.js';
import { MAX_SCRIPTED_OUTCOMES, TOKEN_OUTCOMES } from '../domain/outcomes.js';
import { tokenOutcomeWord } from './token-outcomes.js';
import { SandboxError, errorMessage } from '../errors.js';
import { faultSpecPattern, wordsPattern } from './patterns.js';
import { validate } from './validate.js';
import { SHIPPED_SCENARIOS_DIR, shippedScenarioNames } from './shipped-scenarios.js';

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
export const scenarioDocumentSchema = lazySchema(() =>
  z
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
      tokens: z
        .array(
          z
            .object({
              token: z.string(hint('a token id such as tok_...')).regex(/^tok_[A-Za-z0-9_]{1,64}$/, hint('a token id such as tok_...')),
              merchant: z.string(merchant).min(1, merchant).max(100, merchant).optional(),
              outcomes: z
                .array(tokenOutcomeWord())
                .min(1)
                .max(MAX_SCRIPTED_OUTCOMES)
                .describe(`what the next charges on the token do, one each: ${TOKEN_OUTCOMES.join(', ')}`),
            })
            .strict(),
        )
        .max(10_000)
        .optional()
        .describe(
          'scripted futures of saved tokens, such as {"token": "tok_...", "outcomes": ["approve", "insufficient_funds"]} (as POST /_sandbox/tokens/{id}/outcomes)',
        ),
    })
    .strict()
    .refine((doc) => doc.entries.length > 0 || doc.faults !== undefined || (doc.tokens?.length ?? 0) > 0, {
      path: ['entries'],
      error:
        'entries must be a list of entries such as {"reference": "order-*", "outcome": "challenge:fail"}; it may be empty only when faults or tokens is set',
    }),
);

/** A parsed scenario document. */
export type ScenarioDocument = z.output<ReturnType<typeof scenarioDocumentSchema>>;

/**
 * The file behind --scenario: a path relative to `cwd`, else the name of a shipped scenario (with
 * or without .json). A path wins, so a merchant's own file may share a shipped name.
 */
export function resolveScenarioFile(nameOrPath: string, from = '--scenario', cwd = process.cwd()): string {
  const path = resolve(cwd, nameOrPath);
  if (existsSync(path)) return path;
  const shipped = shippedScenarioNames();
  const name = basename(nameOrPath, '.json');
  if (nameOrPath === name || nameOrPath === `${name}.json`) {
    if (shipped.includes(name)) return resolve(SHIPPED_SCENARIOS_DIR, `${name}.json`);
  }
  throw missingScenario(from, path, shipped);
}

function missingScenario(from: string, path: string, shipped: string[]): SandboxError {
  return new SandboxError(
    'parameter_invalid',
    `${from}: scenario file ${path} does not exist; shipped scenarios, given by name: ${shipped.join(', ')}`,
    'scenario',
  );
}

/** Reads and checks a scenario file; errors name the option (`from`), the file and the first bad field. */
export function readScenarioFile(path: string, from = '--scenario'): ScenarioDocument {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') throw missingScenario(from, path, shippedScenarioNames());
    throw new SandboxError('parameter_invalid', `${from} ${path} cannot be read: ${errorMessage(err)}`, 'scenario');
  }
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (err) {
    throw new SandboxError('parameter_invalid', `${from} ${path} is not valid JSON: ${errorMessage(err)}`, 'scenario');
  }
  try {
    return validate(scenarioDocumentSchema(), raw);
  } catch (err) {
    const e = err as SandboxError;
    throw new SandboxError('parameter_invalid', `${from} ${path}: ${e.message}`, 'scenario');
  }
}
