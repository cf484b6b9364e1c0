// The static assets the pages load: the customer pages' stylesheet, the local-time script and the
// icon, each cached by the browser.
import { Hono } from 'hono';
import { FAVICON_SVG, LOCAL_TIME_JS } from '../pages/page-assets.js';
import { PAGE_CSS } from '../pages/styles.js';
import type { AppEnv } from './app-env.js';
import { pageRoute } from './openapi/pages.js';
import type { OpenApiRoute } from './openapi/route.js';

/** GET /assets/pay.css, /assets/local-time.js and /favicon.ico. */
export function assetRoutes() {
  const app = new Hono<AppEnv>();
  app.get('/assets/pay.css', (c) => {
    c.header('Cache-Control', 'public, max-age=3600');
    return c.body(PAGE_CSS, 200, { 'Content-Type': 'text/css; charset=utf-8' });
  });
  app.get('/assets/local-time.js', (c) =>
    c.body(LOCAL_TIME_JS, 200, { 'Content-Type': 'text/javascript; charset=utf-8', 'Cache-Control': 'public, max-age=3600' }),
  );
  app.get('/favicon.ico', (c) => c.body(FAVICON_SVG, 200, { 'Content-Type': 'image/svg+xml', 'Cache-Control': 'public, max-age=86400' }));
  return app;
}

const asset = (path: string, summary: string, type: string): OpenApiRoute =>
  pageRoute('get', path, summary, type, { tag: 'Assets', responseType: type });

/** The routes of this module, for /openapi.json. */
export const assetsOpenApi: OpenApiRoute[] = [
  asset('/assets/pay.css', "The customer pages' stylesheet", 'text/css'),
  asset('/assets/local-time.js', "Shows times in the visitor's time zone", 'text/javascript'),
  asset('/favicon.ico', 'The icon (SVG)', 'image/svg+xml'),
];
