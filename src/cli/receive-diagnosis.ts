// What `sandbox receive` says about a request: whether it is a webhook at all (a browser's GET
// /favicon.ico is not), and why a webhook's signature does not verify. First the way it is
// signed (--signature, --header-prefix), read from its headers; then whose secret signs it: the
// sandbox that sent it (--url) tells, for the delivery in X-<prefix>-Delivery-Id, the endpoint
// and the merchant it was sent for (GET /_sandbox/deliveries/{id}).
import type http from 'node:http';
import { standardSecret, verifyWebhook } from '../crypto/signature.js';
import type { SignatureMode } from '../domain/vocabularies.js';
import { ControlClient } from './control-client.js';
import type { DeliveryView } from '../views/delivery.js';
import type { FaultListView } from '../views/fault-rule.js';
import type { MerchantListView } from '../views/merchant.js';

/** How receive verifies, and where it asks about deliveries. */
export interface VerifySettings {
  secret: string;
  signature: string;
  headerPrefix: string;
  url: string;
  controlToken?: string;
}

/** How long receive waits for the sandbox's answer about a delivery before giving the general reason. */
const LOOKUP_TIMEOUT_MS = 2000;

const STANDARD_HEADERS = ['webhook-id', 'webhook-signature'];

/** True for a POST that carries a webhook's headers: a sandbox's X-<prefix>-Signature/-Event-Id/-Delivery-Id, or Standard Webhooks' webhook-id/-signature. */
export function looksLikeWebhook(method: string | undefined, headers: http.IncomingHttpHeaders): boolean {
  return (
    method === 'POST' &&
    Object.keys(headers).some((name) => /^x-[a-z0-9]+-(signature|event-id|delivery-id)$/.test(name) || STANDARD_HEADERS.includes(name))
  );
}

/** The words of the X-<word>-Signature headers present, as a flag would take them ("Acme"). */
function signaturePrefixes(headers: http.IncomingHttpHeaders): string[] {
  return Object.keys(headers).flatMap((name) => {
    const word = /^x-([a-z0-9]+)-signature$/.exec(name)?.[1];
    return word ? [word[0]!.toUpperCase() + word.slice(1)] : [];
  });
}

/** The way it is signed, when --signature or --header-prefix does not match it; undefined when they do. */
function settingsProblem(headers: http.IncomingHttpHeaders, body: string, s: VerifySettings): string | undefined {
  const prefix = s.headerPrefix.toLowerCase();
  const verifies = (mode: SignatureMode) => verifyWebhook(headers, s.secret, body, { mode, prefix: s.headerPrefix });
  const standard = headers['webhook-signature'] !== undefined;
  const ours = headers[`x-${prefix}-signature`] !== undefined;
  if (standard && !ours && s.signature !== 'standard')
    return 'it is signed the Standard Webhooks way (webhook-id, webhook-timestamp, webhook-signature headers): pass --signature standard';
  if (!standard && !ours) {
    const [other] = signaturePrefixes(headers);
    if (other) return `it is signed in X-${other}-Signature: pass --header-prefix ${other}`;
    return `it carries no signature header (X-${s.headerPrefix}-Signature or webhook-signature)`;
  }
  if (ours && !standard && s.signature === 'standard') {
    const mode = (['plain', 'timestamped'] as const).find(verifies);
    return `it is signed in X-${s.headerPrefix}-Signature, not the Standard Webhooks way: pass --signature ${mode ?? 'plain or timestamped, as the sandbox signs'}`;
  }
  const other = s.signature === 'plain' ? 'timestamped' : s.signature === 'timestamped' ? 'plain' : undefined;
  if (ours && other && verifies(other))
    return `it is signed in ${other} mode${other === 'timestamped' ? ' (HMAC of "<timestamp>.<body>")' : ' (HMAC of the body)'}: pass --signature ${other}`;
  return undefined;
}

function withTimeout<T>(promise: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error('no answer in time')), LOOKUP_TIMEOUT_MS);
    timer.unref();
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/** " (a bad-signature fault rule is set ...)" when the sandbox spoils signatures on purpose. */
async function faultNote(client: ControlClient): Promise<string> {
  const rules = await withTimeout(client.get<FaultListView>('/faults')).catch(() => undefined);
  return rules?.data.some((rule) => rule.fault === 'bad-signature')
    ? '; a bad-signature fault rule is set, which spoils signatures on purpose (sandbox faults list)'
    : '';
}

/** Whose secret signs the delivery, asked of the sandbox that sent it. */
async function secretProblem(headers: http.IncomingHttpHeaders, s: VerifySettings): Promise<string> {
  const deliveryId = headers[`x-${s.headerPrefix.toLowerCase()}-delivery-id`];
  if (typeof deliveryId !== 'string')
    return (
      'it is not signed with --secret, and it names no delivery (X-' +
      s.headerPrefix +
      '-Delivery-Id): whoever sent it signs with a secret of their own (sandbox listen --forward-to: its --secret)'
    );
  let delivery: DeliveryView;
  let client: ControlClient;
  try {
    client = new ControlClient(s);
    delivery = await withTimeout(client.get<DeliveryView>(`/deliveries/${encodeURIComponent(deliveryId)}`));
  } catch {
    return `delivery ${deliveryId} is not signed with --secret: a delivery to a registered webhook endpoint (we_...) is signed with that endpoint's secret, any other with its merchant's webhook secret; with --url of the sandbox that sent it (now ${s.url}), receive names which`;
  }
  const faults = await faultNote(client);
  if (delivery.endpoint_id) {
    return `delivery ${deliveryId} to endpoint ${delivery.endpoint_id} (merchant ${delivery.merchant_id}): signed with that endpoint's secret, not --secret; the secret is in the answer that created the endpoint, or a new one in POST /v1/webhook_endpoints/${delivery.endpoint_id}/rotate_secret${faults}`;
  }
  const merchants = await withTimeout(client.get<MerchantListView>('/merchants')).catch(() => undefined);
  const secret = merchants?.data.find((m) => m.id === delivery.merchant_id)?.webhook_secret;
  if (secret !== undefined && (secret === s.secret || standardSecret(secret) === s.secret)) {
    return `delivery ${deliveryId} of merchant ${delivery.merchant_id}: --secret is that merchant's webhook secret, yet the signature does not match: the body or the signature changed on the way${faults}`;
  }
  return `delivery ${deliveryId} of merchant ${delivery.merchant_id} (to the URL its request named, no registered endpoint): signed with that merchant's webhook secret, not --secret (sandbox merchants list --json shows it)${faults}`;
}

/** Why a webhook's signature does not verify with the receiver's settings, in one sentence. */
export async function signatureProblem(headers: http.IncomingHttpHeaders, body: string, settings: VerifySettings): Promise<string> {
  return settingsProblem(headers, body, settings) ?? (await secretProblem(headers, settings));
}
