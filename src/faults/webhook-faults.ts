// Webhook fault injection: the AttemptShaper the delivery worker asks before every attempt. Per
// fault kind the most specific webhook rule wins (endpoint, then URL, then every delivery; a
// merchant= rule over one for every merchant); the rules and the seeded generator of fail=P are
// the FaultInjector's (injector.ts), which builds this shaper as its `webhooks`.
import { formatDuration, parseDuration } from '../domain/duration.js';
import type { Clock } from '../runtime/clock.js';
import type { Delivery } from '../store/deliveries-repo.js';
import type { FaultRule } from '../store/fault-rules-repo.js';
import type { Store } from '../store/store.js';
import type { AttemptShaper, ShapedAttempt } from '../webhooks/delivery/attempt-shaper.js';
import type { FaultKind } from '../domain/fault-spec.js';
import type { OutgoingWebhook, Resigner } from '../webhooks/webhook-request.js';
import { present } from '../errors.js';

/** How long `reorder` holds a delivery waiting for the next one to the same target (sandbox time). */
export const REORDER_WINDOW_MS = 30_000;
/** How old a stale-timestamp attempt claims to be. */
export const STALE_TIMESTAMP_S = 3600;
/** The secret a bad-signature attempt is signed with instead of the real one. */
const WRONG_SECRET = 'whsec_injected_wrong_secret';

/** What attempt shaping reads from the fault rules, as they stand at each attempt. */
export interface WebhookFaultSource {
  /** The webhook rules in force. */
  rules(): readonly FaultRule[];
  /** The next number of the seeded generator, in [0, 1). */
  draw(): number;
  /** The generator's seed, named in fail=P's message. */
  seed(): number;
}

/** Shapes webhook attempts by the webhook fault rules. */
export class WebhookFaults implements AttemptShaper {
  /** reorder: per target (endpoint id or URL), the delivery held back for the next one. */
  private readonly heldByTarget = new Map<string, string>();
  /** reorder: held deliveries, with the delivery that overtook them once there is one. */
  private readonly held = new Map<string, { partner?: string }>();
  /** reorder: delivery that overtook -> the held one to release once its attempt is recorded. */
  private readonly releases = new Map<string, string>();

  constructor(
    private readonly deps: { clock: Clock; store: Store },
    private readonly source: WebhookFaultSource,
  ) {}

  /** Forgets the deliveries reorder held: a reset or import replaced them. */
  forgetHeld(): void {
    this.heldByTarget.clear();
    this.held.clear();
    this.releases.clear();
  }

  /** True when no webhook rule matches the delivery (at once when there are no rules at all). */
  quiet(delivery: Delivery): boolean {
    return this.source.rules().length === 0 || this.rulesFor(delivery).size === 0;
  }

  /** Applies the rules that match the delivery to this attempt. */
  shape(delivery: Delivery, attempt: number, request: OutgoingWebhook, resign: Resigner): ShapedAttempt {
    const active = this.rulesFor(delivery);
    if (active.size === 0) return { request, fault: null };
    const now = this.deps.clock.now();
    const labels: string[] = [];
    const value = (kind: FaultKind) => active.get(kind)?.value ?? null;
    const count = (kind: FaultKind) => (active.has(kind) ? Number(value(kind) ?? 1) : 0);

    if (active.has('delay') && attempt === 1) {
      const due = delivery.createdAt + present(parseDuration(value('delay') ?? ''), "the delay fault's duration");
      if (now < due) return { request, fault: null, holdUntil: due };
      labels.push(`delay=${value('delay')}`);
    }
    if (active.has('reorder') && attempt === 1) {
      const decision = this.reorder(delivery, now);
      if (decision.holdUntil !== undefined) return { request, fault: null, holdUntil: decision.holdUntil };
      labels.push(decision.label);
    }
    const failFirst = count('fail-first');
    if (attempt <= failFirst) {
      labels.push(`fail-first=${failFirst}`);
      return {
        request,
        fault: labels.join(', '),
        injectedFailure: `fail-first=${failFirst}: attempt ${attempt} failed on purpose; nothing was sent`,
      };
    }
    if (active.has('fail') && this.source.draw() < Number(value('fail'))) {
      labels.push(`fail=${value('fail')}`);
      return {
        request,
        fault: labels.join(', '),
        injectedFailure: `fail=${value('fail')}: this attempt failed on purpose (seed ${this.source.seed()}); nothing was sent`,
      };
    }
    const overrides: { timestamp?: number; secrets?: readonly string[] } = {};
    if (active.has('bad-signature')) {
      overrides.secrets = [WRONG_SECRET];
      labels.push('bad-signature');
    }
    if (active.has('stale-timestamp')) {
      // The signature stays consistent with the old timestamp, as a replayed request's would.
      overrides.timestamp = Math.floor(now / 1000) - STALE_TIMESTAMP_S;
      labels.push('stale-timestamp');
    }
    const shaped: ShapedAttempt = { request: overrides.secrets || overrides.timestamp ? resign(overrides) : request, fault: null };
    const lostAcks = count('lost-ack');
    if (lostAcks > 0 && attempt - failFirst <= lostAcks) {
      shaped.treatAsFailure = true;
      labels.push(lostAcks === 1 ? 'lost-ack' : `lost-ack=${lostAcks}`);
    }
    if (active.has('duplicate')) {
      shaped.duplicates = count('duplicate');
      labels.push(`duplicate=${shaped.duplicates}`);
    }
    shaped.fault = labels.length ? labels.join(', ') : null;
    return shaped;
  }

  /** Once an overtaking delivery is recorded, the one it overtook falls due. */
  settled(delivery: Delivery): void {
    const heldId = this.releases.get(delivery.id);
    if (heldId === undefined) return;
    this.releases.delete(delivery.id);
    this.deps.store.deliveries.reschedule(heldId, this.deps.clock.now());
  }

  /** reorder: hold the first delivery to a target; the next one goes first, then the held one. */
  private reorder(delivery: Delivery, now: number): { holdUntil: number; label?: undefined } | { holdUntil?: undefined; label: string } {
    const target = delivery.endpointId ?? delivery.url;
    const mine = this.held.get(delivery.id);
    if (mine) {
      this.held.delete(delivery.id);
      if (this.heldByTarget.get(target) === delivery.id) this.heldByTarget.delete(target);
      return {
        label: mine.partner
          ? `reorder: held back, sent after ${mine.partner}`
          : `reorder: held ${formatDuration(REORDER_WINDOW_MS)}, no later delivery came; sent alone`,
      };
    }
    const heldId = this.heldByTarget.get(target);
    if (heldId !== undefined) {
      this.heldByTarget.delete(target);
      this.held.set(heldId, { partner: delivery.id });
      this.releases.set(delivery.id, heldId);
      return { label: `reorder: sent before ${heldId}` };
    }
    this.heldByTarget.set(target, delivery.id);
    this.held.set(delivery.id, {});
    return { holdUntil: now + REORDER_WINDOW_MS };
  }

  /** Per fault kind, the most specific rule that matches the delivery. */
  private rulesFor(delivery: Delivery): Map<FaultKind, FaultRule> {
    const place = (rule: FaultRule) =>
      rule.scope === 'endpoint'
        ? rule.target === delivery.endpointId
          ? 3
          : 0
        : rule.scope === 'url'
          ? rule.target === delivery.url
            ? 2
            : 0
          : 1;
    // A merchant= rule counts only for that merchant's deliveries, and over any rule without one.
    const rank = (rule: FaultRule) => (rule.merchant === '' ? place(rule) : rule.merchant === delivery.merchantId ? place(rule) + 3 : 0);
    const best = new Map<FaultKind, FaultRule>();
    for (const rule of this.source.rules()) {
      const r = rank(rule);
      if (r === 0) continue;
      const current = best.get(rule.fault as FaultKind);
      if (!current || rank(current) < r) best.set(rule.fault as FaultKind, rule);
    }
    return best;
  }
}
