// What a page leaves behind in the sandbox its examples ran against: webhook endpoints (which
// sign with their own secrets, so every later webhook to the same URL fails verification), fault
// rules (which fail, duplicate or delay every later delivery), merchants and scenario entries.
// A page cleans up what it creates; the docs test compares the sandbox before and after each one.

import { api } from '../helpers/http.js';

/** What outlives a page, by id: a line naming it, and how to remove it. */
export type Standing = Map<string, { what: string; remove: () => Promise<unknown> }>;

interface Merchant {
  id: string;
  name: string;
  api_key: string;
}

/** Every webhook endpoint, fault rule, merchant and scenario entry of the sandbox at `base`, by id. */
export async function standing(base: string): Promise<Standing> {
  const get = async <T>(path: string, key?: string) => {
    const answer = await api(base, key ? { authorization: `Bearer ${key}` } : {}).get(path);
    if (answer.status !== 200) throw new Error(`GET ${path} answered ${answer.status}: ${answer.text}`);
    return (answer.json as { data: T[] }).data;
  };
  const found: Standing = new Map();
  const control = api(base);
  const merchants = await get<Merchant>('/_sandbox/merchants');
  for (const merchant of merchants) {
    found.set(merchant.id, {
      what: `merchant ${merchant.id} (${merchant.name})`,
      remove: () => control.request('DELETE', `/_sandbox/merchants/${merchant.id}`),
    });
    for (const endpoint of await get<{ id: string; url: string }>('/v1/webhook_endpoints?limit=100', merchant.api_key)) {
      found.set(endpoint.id, {
        what: `webhook endpoint ${endpoint.id} of ${merchant.id} (${endpoint.url})`,
        remove: () => api(base, { authorization: `Bearer ${merchant.api_key}` }).request('DELETE', `/v1/webhook_endpoints/${endpoint.id}`),
      });
    }
  }
  for (const rule of await get<{ id: string; spec: string }>('/_sandbox/faults'))
    found.set(rule.id, {
      what: `fault rule ${rule.id} (${rule.spec})`,
      remove: () => control.request('DELETE', `/_sandbox/faults/${rule.id}`),
    });
  for (const entry of await get<{ id: number; scenario: string; outcome: string }>('/_sandbox/scenarios')) {
    // Scenario entries are cleared all at once (DELETE /_sandbox/scenarios).
    found.set(`scenario ${entry.id}`, {
      what: `scenario entry ${entry.id} (${entry.scenario}: ${entry.outcome})`,
      remove: () => control.request('DELETE', '/_sandbox/scenarios'),
    });
  }
  return found;
}

/** What `after` holds that `before` did not: each as a line naming it. */
export function leftBehind(before: Standing, after: Standing): string[] {
  return [...after].filter(([id]) => !before.has(id)).map(([, { what }]) => what);
}

/**
 * Removes what a page that failed half-way left behind, so the pages after it run against the
 * sandbox they expect (an endpoint left at the walk-through's URL signs every later webhook there
 * with its own secret, and one failure became seven). A page that passes must clean up by itself.
 */
export async function removeLeftBehind(before: Standing, base: string): Promise<void> {
  // Newest first: a merchant's endpoints before the merchant.
  for (const [id, { remove }] of [...(await standing(base))].reverse()) if (!before.has(id)) await remove();
}
