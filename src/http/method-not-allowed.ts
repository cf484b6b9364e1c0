// Which methods a path answers, for the 405 of a known path asked with the wrong method. Read from
// the app's own route table (app.routes), so it can never disagree with the routes themselves.
import { TrieRouter } from 'hono/router/trie-router';

/** One entry of Hono's app.routes. */
interface RouteEntry {
  method: string;
  path: string;
}

/** Answers the methods (with HEAD wherever GET is) that the routes take at a path; empty for an unknown path. */
export function allowedMethods(routes: readonly RouteEntry[]): (path: string) => string[] {
  let router: TrieRouter<true> | undefined;
  let methods: string[] = [];
  return (path) => {
    // Built on first use: by then every route is registered. Middleware entries (ALL) match any path.
    if (!router) {
      router = new TrieRouter<true>();
      for (const route of routes) if (route.method !== 'ALL') router.add(route.method, route.path, true);
      methods = [...new Set(routes.map((r) => r.method).filter((m) => m !== 'ALL'))];
    }
    const built = router;
    const allowed = methods.filter((method) => built.match(method, path)[0].length > 0);
    if (allowed.includes('GET') && !allowed.includes('HEAD')) allowed.push('HEAD');
    return allowed;
  };
}
