// Chromium for the browser tests: Debian's Chromium driven by playwright-core, with the flags every
// browser test uses, and a context that lets requests reach 127.0.0.1 only.
import { existsSync } from 'node:fs';
import { chromium, type Browser, type BrowserContext, type BrowserContextOptions } from 'playwright-core';

/**
 * Debian's headless shell (`chromium-headless-shell`) when it is installed, else the whole browser
 * (`chromium`). The shell is the same Blink, V8 and network stack without the browser's UI layer, the
 * build Playwright itself runs for headless tests; on 2 cores the browser project took 79-82 s of CPU
 * with it against 166 s with the whole browser, on a quiet machine (cgroup CPU, the same 44 tests).
 */
export const CHROMIUM = existsSync('/usr/bin/chromium-headless-shell') ? '/usr/bin/chromium-headless-shell' : '/usr/bin/chromium';

/** Launches headless Chromium, with `extraArgs` after the usual flags. */
export function launchChromium(extraArgs: string[] = []): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-quic',
      '--no-first-run',
      '--disable-component-update',
      '--disable-sync',
      ...extraArgs,
    ],
  });
}

/** A new context whose requests to anything but 127.0.0.1 are aborted and listed in `blocked`. */
export async function localContext(
  browser: Browser,
  options: BrowserContextOptions = {},
): Promise<{ context: BrowserContext; blocked: string[] }> {
  const context = await browser.newContext(options);
  const blocked: string[] = [];
  await context.route('**/*', (route) => {
    if (new URL(route.request().url()).hostname === '127.0.0.1') return route.continue();
    blocked.push(route.request().url());
    return route.abort();
  });
  return { context, blocked };
}
