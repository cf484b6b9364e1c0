// Prints one plain line totalling the vitest JSON reports of `npm test` (the runs that
// scripts/run-tests.js listed in test-artifacts/runs.json) and of the reports named as arguments
// (CI's container project), so CI logs end with "tests: N passed, N failed" whatever
// the runner prints. The PHP and Python example shops count in the examples report:
// test/examples/ makes each of their cases one vitest test (a skipped PHP run counts as skipped).
import { existsSync, readFileSync } from 'node:fs';

if (!existsSync('test-artifacts/runs.json')) {
  console.error('test-artifacts/runs.json is missing: did npm test run?');
  process.exit(1);
}
const reports = [...JSON.parse(readFileSync('test-artifacts/runs.json', 'utf8')), ...process.argv.slice(2)];
let passed = 0;
let failed = 0;
let skipped = 0;
for (const file of reports) {
  if (!existsSync(file)) {
    console.error(`${file} is missing: did npm test run?`);
    process.exit(1);
  }
  const report = JSON.parse(readFileSync(file, 'utf8'));
  passed += report.numPassedTests;
  failed += report.numFailedTests;
  skipped += report.numPendingTests + (report.numTodoTests ?? 0);
}
console.log(`tests: ${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}`);
process.exit(failed > 0 ? 1 : 0);
