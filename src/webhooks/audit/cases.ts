// `sandbox audit-webhooks` and startSandbox().auditWebhooks(): grades a merchant's webhook handler by
// sending it a battery of deliveries of the sandbox's own events, each built exactly as the delivery
// worker builds one (views/webhook-body.ts for the body, buildWebhookRequest for the signed headers, postWebhook
// with the time limit), and checking what it answers. Cases run one after another, in a fixed order,
// because two of them (duplicate, out of order) are about the order a handler sees deliveries in.
import { randomBytes } from 'node:crypto';
import { newId } from '../../domain/ids.js';
import type { Delivery } from '../../store/deliveries-repo.js';
import type { EventRecord } from '../../store/events-repo.js';
import { UNKNOWN_EVENT_TYPE, type AuditCase, type AuditMaterial, type AuditResult, type AuditSettings, type CaseLevel } from './audit.js';
import { buildWebhookRequest, type OutgoingWebhook } from '../webhook-request.js';
import { postWebhook, type PostResult } from '../delivery/http-sender.js';
import { eventEnvelope, s2sWebhookBody } from '../../views/webhook-body.js';
import { RAW_BODY_NOTES, RAW_BODY_RECIPES, RESERIALISATIONS, rawBodyText } from './reserialised.js';

/** How old the stale-timestamp case's timestamp is: twice the 5 minutes a handler should allow. */
const STALE_AGE_SECONDS = 600;

/** The size the large-payload case's body reaches at least. */
const LARGE_PAYLOAD_BYTES = 256 * 1024;

/** What one case expects of an answer. */
type Expect = '2xx' | '4xx';

/** The form the worker gives a delivery, for buildWebhookRequest (nothing of it is stored). */
function auditDelivery(url: string, event: EventRecord, contentType: string, body: string): Delivery {
  const now = Date.now();
  return {
    id: newId('whd'),
    eventId: event.id,
    eventType: event.type,
    merchantId: event.merchantId,
    url,
    endpointId: null,
    contentType,
    body,
    status: 'pending',
    manual: true,
    attempts: 0,
    nextAttemptAt: now,
    traceParent: null,
    traceState: null,
    leaseUntil: null,
    lastStatus: null,
    lastError: null,
    createdAt: now,
    updatedAt: now,
  };
}

/** The event under a fresh id (and optionally other fields), so one case's dedup cannot hide another case's answer. */
function copyOf(event: EventRecord, change: Partial<EventRecord> = {}): EventRecord {
  return { ...event, id: newId('evt'), ...change };
}

/** Wall-clock unix seconds: the handler compares timestamps with its own clock, not the sandbox's. */
const unixNow = () => Math.floor(Date.now() / 1000);

/** A secret nobody has: what a forger signs with. */
const forgedSecret = () => `whsec_${randomBytes(24).toString('base64')}`;

function describeAnswer(result: PostResult): string {
  if (result.status !== null) return `answered ${result.status} in ${Math.round(result.latencyMs)} ms`;
  return result.errorMessage ?? result.errorKind ?? 'no answer';
}

/** Grades one answer against what the case expects. */
function grade(result: PostResult, expect: Expect, timeoutMs: number, whyWrong: string): { ok: boolean; reason: string } {
  if (result.errorKind === 'timeout')
    return {
      ok: false,
      reason: `no answer within ${timeoutMs} ms: the gateway gives up after its time limit and retries; answer first, do slow work after`,
    };
  if (result.status === null) return { ok: false, reason: `${describeAnswer(result)}: nothing answered at the URL` };
  const ok = expect === '2xx' ? result.status >= 200 && result.status < 300 : result.status >= 400 && result.status < 500;
  return { ok, reason: ok ? describeAnswer(result) : `${describeAnswer(result)}; ${whyWrong}` };
}

/** Sends the audit's deliveries to one handler URL. */
class Auditor {
  readonly cases: AuditCase[] = [];

  constructor(
    private readonly url: string,
    private readonly material: AuditMaterial,
    private readonly settings: AuditSettings,
  ) {}

  /** A delivery of `event` as the spec §6.2 JSON envelope. */
  jsonDelivery(event: EventRecord): Delivery {
    return auditDelivery(this.url, event, 'application/json', eventEnvelope(event));
  }

  /** The worker's request for `event` as JSON, signed (by default with the material's secret, now). */
  jsonRequest(event: EventRecord, options: { secret?: string; timestamp?: number } = {}): OutgoingWebhook {
    return this.signed(this.jsonDelivery(event), options);
  }

  /** The worker's signed request of a delivery: buildWebhookRequest, the delivery worker's own. */
  signed(delivery: Delivery, options: { secret?: string; timestamp?: number; attempt?: number } = {}): OutgoingWebhook {
    return buildWebhookRequest(
      delivery,
      options.attempt ?? 1,
      this.settings,
      { mode: this.settings.signatureMode, secrets: [options.secret ?? this.material.secret] },
      options.timestamp ?? unixNow(),
    );
  }

  /** POSTs one request with the time limit, as the worker does. */
  send(request: OutgoingWebhook): Promise<PostResult> {
    return postWebhook(request, this.settings.timeoutMs);
  }

  /** Sends each request in turn and grades every answer; the case passes when all do. */
  async check(id: string, name: string, level: CaseLevel, requests: OutgoingWebhook[], expect: Expect, whyWrong: string): Promise<void> {
    let last: PostResult | undefined;
    let reason = '';
    let ok = true;
    for (const request of requests) {
      last = await this.send(request);
      const graded = grade(last, expect, this.settings.timeoutMs, whyWrong);
      reason = graded.reason;
      if (!graded.ok) {
        ok = false;
        break;
      }
    }
    this.cases.push({
      id,
      name,
      level,
      result: ok ? 'pass' : 'fail',
      reason,
      status: last?.status ?? null,
      latencyMs: last ? last.latencyMs : null,
    });
  }

  /** Records a case that cannot run with these settings or this material. */
  skip(id: string, name: string, level: CaseLevel, reason: string): void {
    this.cases.push({ id, name, level, result: 'skip', reason, status: null, latencyMs: null });
  }
}

/** Runs every case against `url` and grades the handler. */
export async function runWebhookAudit(url: string, material: AuditMaterial, settings: AuditSettings): Promise<AuditResult> {
  const a = new Auditor(url, material, settings);
  await repeatCases(a, material, settings);
  await rawBodyCase(a, material, settings);
  await signatureCases(a, material, settings);
  await contentCases(a, url, material);
  const count = (result: AuditCase['result']) => a.cases.filter((c) => c.result === result).length;
  const mustPassFailed = a.cases.filter((c) => c.level === 'must-pass' && c.result === 'fail').length;
  return {
    url,
    passed: mustPassFailed === 0,
    signatureMode: settings.signatureMode,
    headerPrefix: settings.headerPrefix,
    timeoutMs: settings.timeoutMs,
    source: material.source,
    merchantId: material.merchantId,
    cases: a.cases,
    summary: { pass: count('pass'), fail: count('fail'), skip: count('skip'), mustPassFailed },
  };
}

/** A valid signed event, then the same delivery again. */
async function repeatCases(a: Auditor, material: AuditMaterial, settings: AuditSettings): Promise<void> {
  // The first event and then the same delivery again, as the at-least-once worker sends it after a lost answer: attempt 2, same event id.
  const first = a.jsonDelivery(copyOf(material.authorized));
  await a.check(
    'valid',
    'valid signed event',
    'must-pass',
    [a.signed(first)],
    '2xx',
    `a correctly signed event must get a 2xx within ${settings.timeoutMs} ms: check the secret, and verify the HMAC over the raw body bytes before parsing them (the raw body case says whether the handler re-serialises)`,
  );
  await a.check(
    'duplicate',
    'duplicate delivery',
    'must-pass',
    [a.signed(first, { attempt: 2 })],
    '2xx',
    'an event id seen before must get a 2xx again (and not be processed twice), or the gateway keeps retrying it',
  );
}

/**
 * A correctly signed body that no JSON library writes back the same after parsing it (reserialised.ts):
 * a handler that verifies the bytes received takes it. One that refuses it is sent the same event as
 * each way of changing the body would leave it, correctly signed, until one is taken: that way is what
 * the handler does, and the reason says so with the fix. Correct handlers never see those requests.
 */
async function rawBodyCase(a: Auditor, material: AuditMaterial, settings: AuditSettings): Promise<void> {
  const id = 'raw-body';
  const name = 'body that does not round-trip';
  const metadata = { ...((material.authorized.data.metadata as Record<string, string> | null | undefined) ?? {}), ...RAW_BODY_NOTES };
  const event = copyOf(material.authorized, { data: { ...material.authorized.data, metadata } });
  const sent = await a.send(a.signed({ ...a.jsonDelivery(event), body: rawBodyText(eventEnvelope(event)) }));
  const record = (ok: boolean, reason: string): void => {
    a.cases.push({ id, name, level: 'must-pass', result: ok ? 'pass' : 'fail', reason, status: sent.status, latencyMs: sent.latencyMs });
  };
  const graded = grade(sent, '2xx', settings.timeoutMs, '');
  if (graded.ok || sent.status === null) return record(graded.ok, graded.reason);
  const refused = `${describeAnswer(sent)} to a correctly signed body that does not survive a parse and serialise again (indented, a final newline, "é" and "\\u00e9", "/" and "\\/")`;
  for (const way of RESERIALISATIONS) {
    const probe = copyOf(event);
    const answer = await a.send(a.signed({ ...a.jsonDelivery(probe), body: way.body(rawBodyText(eventEnvelope(probe))) }));
    if (answer.status !== null && answer.status >= 200 && answer.status < 300)
      return record(false, `${refused}, but ${answer.status} to the same event ${way.form}: the handler ${way.does}; ${RAW_BODY_RECIPES}`);
  }
  record(
    false,
    `${refused}: if the valid case passed, the handler changes the bytes before verifying them (parses and serialises them again, trims them, or decodes them as other than UTF-8); ${RAW_BODY_RECIPES}`,
  );
}

/** Requests a handler must refuse: a forged signature, a body tampered after signing, a stale timestamp. */
async function signatureCases(a: Auditor, material: AuditMaterial, settings: AuditSettings): Promise<void> {
  const header = `X-${settings.headerPrefix}-Signature`;
  await a.check(
    'bad-signature',
    'bad signature',
    'must-pass',
    [a.jsonRequest(copyOf(material.authorized), { secret: forgedSecret() })],
    '4xx',
    `a request whose ${header} does not verify must be refused with a 4xx: anyone could have sent it`,
  );

  // The headers signed for the original body, sent with a body whose amount was changed afterwards.
  const original = copyOf(material.captured);
  const amount = original.data.amount;
  const tampered = { ...original, data: { ...original.data, amount: typeof amount === 'number' ? amount + 100_000 : 1 } };
  await a.check(
    'tampered-body',
    'tampered body',
    'must-pass',
    [{ ...a.jsonRequest(original), body: eventEnvelope(tampered) }],
    '4xx',
    `a body changed after signing (with the ${header} of the original) must be refused with a 4xx: verify the signature over the exact bytes received`,
  );

  if (settings.signatureMode === 'plain') {
    a.skip(
      'stale-timestamp',
      'stale timestamp',
      'must-pass',
      'plain signatures do not cover the timestamp; with --signature timestamped a handler must refuse old ones',
    );
  } else {
    await a.check(
      'stale-timestamp',
      'stale timestamp',
      'must-pass',
      [a.jsonRequest(copyOf(material.authorized), { timestamp: unixNow() - STALE_AGE_SECONDS })],
      '4xx',
      `a correctly signed request whose timestamp is ${STALE_AGE_SECONDS / 60} minutes old must be refused with a 4xx (allow 5 minutes at most): otherwise a captured request can be replayed`,
    );
  }
}

/** The cases of what a handler must take: an unknown type, events out of order, an encrypted S2S body, a large payload. */
async function contentCases(a: Auditor, url: string, material: AuditMaterial): Promise<void> {
  await a.check(
    'unknown-event-type',
    'unknown event type',
    'must-pass',
    [a.jsonRequest(copyOf(material.authorized, { type: UNKNOWN_EVENT_TYPE }))],
    '2xx',
    'an event type the handler does not know must get a 2xx and be ignored: the gateway adds types, and a refusal makes it retry for hours',
  );

  // captured before authorized, for one payment: deliveries are concurrent and retried, so order is never promised.
  await a.check(
    'out-of-order',
    'events out of order',
    'advice',
    [a.jsonRequest(copyOf(material.captured)), a.jsonRequest(copyOf(material.authorized))],
    '2xx',
    "events can arrive in any order (retries, concurrency): answer 2xx and reconcile from the payment's state, never assume authorized comes first",
  );

  if (material.s2s && material.keys) {
    const event = copyOf(material.s2s);
    const body = s2sWebhookBody(event.data as Record<string, string>, 'aes256', material.keys);
    await a.check(
      'encrypted-s2s',
      'encrypted S2S data= body',
      'advice',
      [a.signed(auditDelivery(url, event, 'application/x-www-form-urlencoded', body))],
      '2xx',
      'an S2S webhook with encryption_method=aes256 is a form body data=<cipher>: verify the signature, decrypt with the terminal keys (docs/encryption.md) and answer 2xx',
    );
  } else {
    a.skip(
      'encrypted-s2s',
      'encrypted S2S data= body',
      'advice',
      'the terminal keys are not known (the merchant has no terminal), so nothing was encrypted',
    );
  }

  await a.check(
    'large-payload',
    `large payload (${LARGE_PAYLOAD_BYTES / 1024} KiB)`,
    'advice',
    [a.jsonRequest(largeCopy(material.authorized))],
    '2xx',
    `a ${LARGE_PAYLOAD_BYTES / 1024} KiB event (metadata-rich) must be taken: raise the body limit of the webhook route (express.json() stops at 100 kB)`,
  );
}

/** A copy of `event` whose metadata holds enough 500-character values for the envelope to pass LARGE_PAYLOAD_BYTES. */
function largeCopy(event: EventRecord): EventRecord {
  const metadata: Record<string, string> = { ...((event.data.metadata as Record<string, string> | undefined) ?? {}) };
  const value = 'x'.repeat(500);
  for (let i = 0; eventEnvelope({ ...event, data: { ...event.data, metadata } }).length < LARGE_PAYLOAD_BYTES; i++) {
    for (let j = 0; j < 64; j++) metadata[`audit_${String(i * 64 + j).padStart(4, '0')}`] = value;
  }
  return copyOf(event, { data: { ...event.data, metadata } });
}
