// The scenarios the package ships (fixtures/scenarios/*.json), by name: apart from scenario-file.ts
// and its zod schemas, so `sandbox start --help` lists them without compiling the schemas.
import { readdirSync } from 'node:fs';
import { basename } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CODE_DIR } from '../code-dir.js';

/** fixtures/scenarios/ of the installed package, which merchants' projects do not have. */
export const SHIPPED_SCENARIOS_DIR = fileURLToPath(new URL('../fixtures/scenarios/', CODE_DIR));

/** The names of the shipped scenarios, e.g. 3ds-fails-then-approves. */
export function shippedScenarioNames(): string[] {
  return readdirSync(SHIPPED_SCENARIOS_DIR)
    .filter((file) => file.endsWith('.json'))
    .map((file) => basename(file, '.json'))
    .sort();
}
