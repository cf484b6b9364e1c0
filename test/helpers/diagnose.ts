// Signature diagnosis from a test: a webhook as a fake merchant received it, and the sandbox's
// answer to POST /_sandbox/signatures/diagnose (checked against the OpenAPI document by the http
// helper). No answer may show a secret: every secret a test hands to secretSeen() is looked for in
// every message, after each test.
import { afterEach, expect } from 'vitest';
import type { ReceivedWebhook } from './fake-merchant.js';
import type { SandboxWithMerchant } from './sandbox-with-merchant.js';
import { CREDS, s2sBody } from './test-sandbox.js';
import { waitFor } from './wait-for.js';

/** A webhook as a handler had it: header names in lower case, the raw body. */
export interface HeldWebhook {
  headers: Record<string, string>;
  body: string;
}

/** The answer of a diagnosis. */
export interface Diagnosis {
  valid: boolean;
  cause: string;
  message: string;
}

const secrets = new Set<string>([CREDS.secret, CREDS.other.secret, 'whsec_d2hzZWNfdGVzdF9zYW5kYm94']);
const messages: string[] = [];
afterEach(() => {
  for (const message of messages.splice(0)) for (const secret of secrets) expect(message).not.toContain(secret);
});

/** Remembers a secret no diagnosis may show. */
export function secretSeen(secret: string): void {
  secrets.add(secret);
}

/** The headers a handler got, as the JSON the diagnosis takes. */
export function heldWebhook(hook: ReceivedWebhook): HeldWebhook {
  const headers = Object.fromEntries(Object.entries(hook.headers).filter(([, value]) => value !== undefined));
  return { headers: headers as Record<string, string>, body: hook.body };
}

/** Asks the sandbox why the check of `hook` with `secret` fails. */
export async function diagnose(env: SandboxWithMerchant, hook: HeldWebhook, secret?: string): Promise<Diagnosis> {
  const res = await env.http.post('/_sandbox/signatures/diagnose', { ...hook, ...(secret === undefined ? {} : { secret }) });
  expect(res.status, res.text).toBe(200);
  messages.push(res.json.message);
  return res.json;
}

/**
 * `hook` once the sandbox has recorded the attempt that sent it: the handler has the request before
 * the sandbox has its answer, so a diagnosis asked at once may find the delivery not sent yet.
 */
export async function recorded(env: SandboxWithMerchant, hook: HeldWebhook): Promise<HeldWebhook> {
  const id = hook.headers['x-sandbox-delivery-id'];
  await waitFor(
    async () => ((await env.http.get(`/_sandbox/deliveries/${id}`)).json.attempt_log?.length ?? 0) > 0 || undefined,
    `the attempt of ${id} to be recorded`,
  );
  return hook;
}

/** The S2S form webhook of the next approved payment, as the fake merchant received it at `path`, its attempt recorded. */
export async function s2sWebhook(env: SandboxWithMerchant, path = '/s2s'): Promise<HeldWebhook> {
  const { json } = await env.http.post('/api/s2s', s2sBody({ ccno: '4242424242424242', webhook_url: `${env.merchant.url}${path}` }));
  const hook = await waitFor(() => env.merchant.at(path).find((r) => r.body.includes(json.transID)), 'the S2S webhook');
  return recorded(env, heldWebhook(hook));
}
