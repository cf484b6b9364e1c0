// Only the JobRunner writes the jobs table: a job written any other way leaves the runner's timer
// asleep, and an idle sandbox runs it only at the next clock advance (the chargeback test card and
// the slow SEPA IBAN once did exactly that). Read from the source, so a new shortcut fails here.
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { expect, it } from 'vitest';

const SRC = new URL('../../src', import.meta.url).pathname;

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sources(path);
    return /\.(ts|tsx)$/.test(entry.name) ? [path] : [];
  });
}

/** Lines of `src/` matching `pattern`, as "file:line: text", outside the files allowed to. */
function offenders(pattern: RegExp, allowed: string[]): string[] {
  return sources(SRC).flatMap((path) => {
    const file = relative(SRC, path);
    if (allowed.includes(file)) return [];
    return readFileSync(path, 'utf8')
      .split('\n')
      .flatMap((line, i) => (pattern.test(line) ? [`${file}:${i + 1}: ${line.trim()}`] : []));
  });
}

it('only the job runner reaches the jobs repository', () => {
  expect(offenders(/\bstore\.jobs\b/, ['services/job-runner.ts'])).toEqual([]);
});

it('only the jobs repository holds SQL that writes the jobs table', () => {
  expect(offenders(/\b(INSERT INTO|UPDATE|DELETE FROM)\s+jobs\b/i, ['store/jobs-repo.ts'])).toEqual([]);
});
