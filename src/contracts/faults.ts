// POST /_sandbox/faults: a fault rule in the one fault grammar (domain/fault-spec.ts parses it)
// and/or a seed for the random ones.
import * as z from 'zod';
import { lazySchema } from '../lazy-schema.js';
import { API_FAULT_KINDS } from '../domain/api-faults.js';
import { FAULT_KINDS } from '../domain/fault-spec.js';
import { faultSpecPattern } from './patterns.js';

/** The shape of a fault spec, for the document (the parser checks the rest). */
const FAULT_SPEC_PATTERN = faultSpecPattern([...FAULT_KINDS, ...API_FAULT_KINDS]);

/** POST /_sandbox/faults body. */
export const faultRuleSchema = lazySchema(() =>
  z
    .object({
      spec: z
        .string()
        .meta({ pattern: FAULT_SPEC_PATTERN })
        .optional()
        .describe(
          'a fault spec such as "duplicate=2", "url=http://127.0.0.1:3000/hook:fail-first=2" or "route=POST /v1/payments:status=503,p=0.2" (see docs/api-faults.md)',
        ),
      seed: z.number().int().min(0).max(0xffffffff).optional().describe('a whole number from 0 to 4294967295'),
    })
    .strict(),
);
