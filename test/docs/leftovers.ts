// What a page leaves behind in the sandbox its examples ran against: webhook endpoints (which
// sign with their own secrets, so every later webhook to the same URL fails verification), fault
// rules (which fail, duplicate or delay every later delivery), merchants and scenario entries.
// A page cleans up what it creates; the docs test compares the sandbox before and after each one.

import { api } from '../helpers/http.js';

/** What the control and bearer APIs show of one kind of thing that outlives a page. */
export type Standing = Map<string, string>;

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
  const merchants = await get<Merchant>('/_sandbox/merchants');
  for (const merchant of merchants) {
    found.set(merchant.id, `merchant ${merchant.id} (${merchant.name})`);
    for (const endpoint of await get<{ id: string; url: string }>('/v1/webhook_endpoints?limit=100', merchant.api_key)) {
      found.set(endpoint.id, `webhook endpoint ${endpoint.id} of ${merchant.id} (${endpoint.url})`);
    }
  }
  for (const rule of await get<{ id: string; spec: string }>('/_sandbox/faults'))
    found.set(rule.id, `fault rule ${rule.id} (${rule.spec})`);
  for (const entry of await get<{ id: number; scenario: string; outcome: string }>('/_sandbox/scenarios')) {
    found.set(`scenario ${entry.id}`, `scenario entry ${entry.id} (${entry.scenario}: ${entry.outcome})`);
  }
  return found;
}

/** What `after` holds that `before` did not: each as a line naming it. */
export function leftBehind(before: Standing, after: Standing): string[] {
  return [...after].filter(([id]) => !before.has(id)).map(([, what]) => what);
}
