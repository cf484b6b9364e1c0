// axe-core's WCAG checks in Chromium, run in the page with axe.run.
//
// @axe-core/playwright's analyze() sent axe's 650 KB source into the page on every call, ran
// axe.runPartial there, then opened a blank page, sent the source again and ran axe.finishRun in
// it (its way of reaching cross-origin iframes, which these pages do not have). Measured on this
// machine over the same 12 dashboard pages: 20 s of wall time and 25 s of CPU that way, 7 s and
// 11 s with the source loaded once per context as an init script and axe.run in the page, the
// same violations found. The browser tests were a quarter of the whole suite's CPU, and
// accessibility.test.ts a third of theirs (139 s of CPU before, 94 s after).
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { AxeResults, Result } from 'axe-core';
import type { BrowserContext, Page } from 'playwright-core';

/** The rules checked: WCAG 2.1 A and AA. */
const TAGS = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'];

/** axe-core's browser build, read once per test file. */
const SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

/** Loads axe-core into every document the context opens from now on, before the page's own scripts. */
export async function withAxe(context: BrowserContext): Promise<void> {
  await context.addInitScript({ content: SOURCE });
}

/** axe-core's WCAG 2.1 A/AA violations on the page as it is now (axe is loaded first if the context did not). */
export async function axeViolations(page: Page): Promise<Result[]> {
  if (!(await page.evaluate(() => 'axe' in window))) await page.evaluate(SOURCE);
  return page.evaluate(
    (tags) =>
      (window as unknown as { axe: { run(context: Document, options: object): Promise<AxeResults> } }).axe
        .run(document, { runOnly: { type: 'tag', values: tags } })
        .then((results) => results.violations),
    TAGS,
  );
}
