// The option and result types of the startSandbox() handle: the credentials it hands out, what
// createMerchant(), waitForDelivery(), authenticate(), auditWebhooks() and trigger() take and give.
import type { EventType } from '../domain/event-types.js';
import type { DeliveryWaitStatus, SignatureMode } from '../domain/vocabularies.js';
import type { SandboxDelivery } from './deliveries.js';

/** One seeded merchant with all its credentials. */
export interface MerchantCredentials {
  merchantId: string;
  name: string;
  /** The secret as the sandbox's mode uses it: with signature 'standard', the whsec_<base64> form Standard Webhooks libraries take. */
  webhookSecret: string;
  apiKeys: string[];
  terminals: Array<{ terNO: number; publicKey: string; privateKey: string }>;
}

/** The credentials of the first seeded merchant, ready to use, and every merchant in `merchants`. */
export interface SandboxCredentials {
  merchantId: string;
  terNO: number;
  publicKey: string;
  privateKey: string;
  apiKey: string;
  webhookSecret: string;
  merchants: MerchantCredentials[];
}

/** What createMerchant() takes; every field is optional. */
export interface CreateMerchantOptions {
  /** Shown in lists and the dashboard (default "Merchant <terNO>"). */
  name?: string;
  /** The currency the sandbox invents objects in for this merchant, e.g. event triggers (default EUR). */
  currency?: string;
  /** Terminals of your choosing (default: one new terminal). */
  terminals?: Array<{ terNO: number; publicKey: string; privateKey: string }>;
}

/** A merchant made by createMerchant(): its first terminal and key ready to use, like the handle's own credentials. */
export interface CreatedMerchant extends MerchantCredentials {
  terNO: number;
  publicKey: string;
  privateKey: string;
  apiKey: string;
  currency: string;
}

/** What waitForDelivery waits for; every field given must match. */
export interface WaitForDeliveryOptions {
  /** The event type, e.g. payment.authorized: one of the event names (an unknown one rejects at once). */
  event?: EventType;
  /** The exact URL the webhook goes to. */
  url?: string;
  /** 'succeeded' (default), 'failed' (retries exhausted), or 'any' (queued, in any state). */
  status?: DeliveryWaitStatus;
  /** Real milliseconds to wait before rejecting (default 5000). */
  timeoutMs?: number;
  /** An extra test, e.g. (d) => d.body.transID === transID. */
  match?: (delivery: SandboxDelivery) => boolean;
}

/** What authenticate() did. */
export interface AuthenticationResult {
  /** passed, failed, cancelled or expired. */
  state: string;
  /** Where the customer would be sent next (the merchant's return_url with its query). */
  redirectUrl: string;
}

/** Options of auditWebhooks(); each defaults to what this sandbox would send with. */
export interface AuditWebhooksOptions {
  /** The secret the handler verifies with (default: the merchant's webhook secret). */
  secret?: string;
  /** plain or timestamped (default: the sandbox's --signature). */
  signature?: SignatureMode;
  /** The word in X-<prefix>-Signature (default: the sandbox's --header-prefix). */
  headerPrefix?: string;
  /** Each answer must come within this many milliseconds (default: the sandbox's webhook timeout, 5 s). */
  timeoutMs?: number;
  /** Whose events and secret (default: the first merchant, mer_sandbox). */
  merchant?: string;
}

/** What diagnoseSignature() takes: what your handler received, and the secret it verified with. */
export interface DiagnoseSignatureOptions {
  /** The request headers, as node:http (req.headers) or a framework gives them. */
  headers: Record<string, string | string[] | undefined>;
  /** The raw body, exactly as received. */
  body: string | Buffer;
  secret?: string;
}

/** What trigger() takes besides the event type; every field is optional. */
export interface TriggerOptions {
  /** An existing /v1/ payment (pay_...) or S2S transID to produce the event on (default: a new payment). */
  payment?: string;
  /** Also deliver the event to this URL (once, signed, never retried). */
  to?: string;
  /** Whose new objects these are (default: the first merchant, mer_sandbox). */
  merchant?: string;
  /** Fields of the request that makes the event's object, by dotted path, e.g. { amount: 1500, 'metadata.order_id': 'ord_42' }. */
  set?: Record<string, unknown>;
}
