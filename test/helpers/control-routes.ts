// Every /_sandbox route, read from the app itself (Hono's app.routes), so a route added later is
// covered by the control-plane tests without anyone remembering to list it.
import { createTestSandbox } from './test-sandbox.js';

/** One control route: its method, a concrete path (":param" filled in) and whether it changes state. */
export interface ControlRoute {
  method: string;
  path: string;
  writes: boolean;
}

/** The method and path of every /_sandbox handler of the app (middleware, registered as ALL, left out), each once. */
export function controlRoutes(): ControlRoute[] {
  const sb = createTestSandbox();
  try {
    const seen = new Map<string, ControlRoute>();
    for (const route of sb.app.routes) {
      if (route.method === 'ALL' || !(route.path === '/_sandbox' || route.path.startsWith('/_sandbox/'))) continue;
      const path = route.path.replace(/:[A-Za-z0-9_]+/g, 'x_1');
      seen.set(`${route.method} ${path}`, { method: route.method, path, writes: !['GET', 'HEAD', 'OPTIONS'].includes(route.method) });
    }
    return [...seen.values()];
  } finally {
    sb.close();
  }
}
