// Chromium for the browser tests: Debian's /usr/bin/chromium driven by playwright-core, with the
// flags every browser test uses, and a context that lets requests reach 127.0.0.1 only.
import { chromium, type Browser, type BrowserContext, type BrowserContextOptions } from 'playwright-core';

/** Launches headless Chromium, with `extraArgs` after the usual flags. */
export function launchChromium(extraArgs: string[] = []): Promise<Browser> {
  return chromium.launch({
    executablePath: '/usr/bin/chromium',
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
