// Fault injection: the fault rules, the standing API fault rules the api-faults middleware asks
// about every request, and (webhook-faults.ts, built here as `webhooks`) the AttemptShaper the
// delivery worker calls before every attempt. Rules come from --faults at start, POST
// /_sandbox/faults, `sandbox faults set` and scenario files (grammar in domain/fault-spec.ts); per fault
// kind the most specific rule wins (webhooks: endpoint, then URL, then global; API: route, then
// every route; a merchant= rule over one for every merchant). Randomness (fail=P, p=P) comes from
// one seeded generator, so a run with the same --fault-seed repeats exactly.
import { randomInt } from 'node:crypto';
import { newId } from '../domain/ids.js';
import { SandboxError } from '../errors.js';
import type { Config } from '../config.js';
import type { Clock } from '../runtime/clock.js';
import type { Store } from '../store/store.js';
import type { FaultRule } from '../store/fault-rules-repo.js';
import type { ActivityBus } from '../runtime/activity.js';
import {
  isApiFault,
  parseRoutePattern,
  routeMatches,
  ENDING_FAULTS,
  type ApiFault,
  type ApiFaultKind,
  type RoutePattern,
} from '../domain/api-faults.js';
import { parseFaultSpec } from '../domain/fault-spec.js';
import { WebhookFaults } from './webhook-faults.js';

/** What the fault engine is built from (a subset of the services' dependencies: webhooks do not import services). */
export interface FaultEngineDeps {
  config: Config;
  store: Store;
  clock: Clock;
  activity: ActivityBus;
}

/** A standing API fault rule with its route filter compiled. */
export interface ApiFaultRule {
  rule: FaultRule;
  route: RoutePattern | null;
}

/** One fault injected into an API request, as the dashboard lists it. */
export interface InjectedFault {
  at: number;
  requestId: string;
  method: string;
  path: string;
  /** e.g. "latency=2s, lost-answer". */
  fault: string;
  /** "header" (X-Sandbox-Fault) or the id of the standing rule. */
  origin: string;
}

/** How many injected API faults the dashboard keeps (in memory: the request log is the record). */
export const RECENT_FAULTS = 100;

/** A small seedable generator (mulberry32): the same seed gives the same sequence. */
function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Holds the fault rules, draws the API faults a request gets, and shapes webhook attempts through `webhooks`. */
export class FaultInjector {
  private rules: FaultRule[] = [];
  /** The webhook rules of `rules` (the API ones are apart in apiRules). */
  private webhookRules: FaultRule[] = [];
  /** The API fault rules of `rules`, apart: most requests meet none and pay one length check. */
  private apiRules: ApiFaultRule[] = [];
  private readonly injected: InjectedFault[] = [];
  private seed: number;
  private random: () => number;
  /** The delivery worker's AttemptShaper: the webhook rules applied to each attempt. */
  readonly webhooks: WebhookFaults;

  constructor(private readonly deps: FaultEngineDeps) {
    this.seed = deps.config.faultSeed ?? randomInt(2 ** 31);
    this.random = seededRandom(this.seed);
    this.webhooks = new WebhookFaults(deps, { rules: () => this.webhookRules, draw: () => this.random(), seed: () => this.seed });
    this.applyStartRules();
    this.reload();
  }

  /**
   * The rules live in memory; a reset or import replaced the table under them (services.ts calls
   * this on the 'state.replaced' signal). A reset re-applies the --faults rules and restarts the
   * fail=P generator from its seed, as a start does; both reload the table, and reorder forgets the
   * deliveries it held, which are gone.
   */
  stateReplaced(how: 'reset' | 'import'): void {
    if (how === 'reset') {
      this.applyStartRules();
      // As at start: fail=P draws the same sequence again, so tests separated by resets repeat.
      this.setSeed(this.seed);
    }
    this.webhooks.forgetHeld();
    this.reload();
  }

  /** --faults rules belong to this start: the previous start's are replaced, API rules stay. */
  private applyStartRules(): void {
    const { store, config } = this.deps;
    store.tx(() => {
      store.faultRules.clearSource('flag');
      if (config.faults) this.insert(config.faults, 'flag', 'faults');
    });
  }

  /** Every rule, oldest first, with the seed of the random faults. */
  list(): { rules: FaultRule[]; seed: number } {
    return { rules: [...this.rules], seed: this.seed };
  }

  /**
   * Adds (or replaces, per scope, target, merchant and kind) the rules of a spec, set through the
   * control API or a posted scenario; a bad spec is a 400 on `param`, and an endpoint= or merchant=
   * that names nothing a 404 on it (a typo would otherwise store a rule that matches nothing).
   */
  add(spec: string, param = 'spec', source: FaultRule['source'] = 'api'): FaultRule[] {
    this.refuseUnknownTargets(spec, param);
    const added = this.deps.store.tx(() => this.insert(spec, source, param));
    this.reload();
    // A rule set again keeps its id: answer with the stored rows.
    return this.rules.filter((rule) =>
      added.some((a) => a.scope === rule.scope && a.target === rule.target && a.merchant === rule.merchant && a.fault === rule.fault),
    );
  }

  /** Replaces the rules a scenario file set with those of `spec` (none when undefined). */
  replaceScenarioRules(spec: string | undefined, param: string): void {
    this.deps.store.tx(() => {
      this.deps.store.faultRules.clearSource('scenario');
      if (spec !== undefined) this.insert(spec, 'scenario', param);
    });
    this.reload();
  }

  /** The standing API rules whose route filter matches; empty (and cheap) when there are none. */
  apiRulesFor(method: string, path: string): ApiFaultRule[] {
    if (this.apiRules.length === 0) return [];
    return this.apiRules.filter((api) => api.route === null || routeMatches(api.route, method, path));
  }

  /**
   * Of the rules apiRulesFor() matched, those that fire on this request: per fault kind the most
   * specific rule for `merchantId`, drawn against its p= from the seeded generator; when several
   * ending faults fire, the most specific one. Empty when none fires.
   */
  drawApiFaults(matched: readonly ApiFaultRule[], merchantId: string | undefined): Array<ApiFault & { ruleId: string }> {
    const rank = ({ rule }: ApiFaultRule) => (rule.merchant ? 2 : 0) + (rule.scope === 'route' ? 1 : 0);
    const best = new Map<ApiFaultKind, ApiFaultRule>();
    for (const api of matched) {
      if (api.rule.merchant && api.rule.merchant !== merchantId) continue;
      const current = best.get(api.rule.fault as ApiFaultKind);
      if (!current || rank(current) < rank(api)) best.set(api.rule.fault as ApiFaultKind, api);
    }
    const fired = [...best.values()].filter(({ rule }) => rule.probability === null || this.random() < rule.probability);
    const ending = fired.filter(({ rule }) => ENDING_FAULTS.includes(rule.fault as ApiFaultKind)).sort((a, b) => rank(b) - rank(a))[0];
    return fired
      .filter((api) => api.rule.fault === 'latency' || api === ending)
      .map(({ rule }) => ({ kind: rule.fault as ApiFaultKind, value: rule.value, ruleId: rule.id }));
  }

  /** Records a fault injected into an API request and tells the activity bus (the dashboard refreshes). */
  recordInjected(fault: InjectedFault): void {
    this.injected.unshift(fault);
    if (this.injected.length > RECENT_FAULTS) this.injected.pop();
    // The stream's items are snake_case and carry `at` as an ISO time of their own.
    const { requestId, method, path, fault: label, origin } = fault;
    this.deps.activity.publish({
      kind: 'fault.injected',
      at: fault.at,
      data: { request_id: requestId, method, path, fault: label, origin },
    });
  }

  /** The API faults injected lately, newest first. */
  recentInjected(): readonly InjectedFault[] {
    return this.injected;
  }

  /** Restarts the generator of fail=P from `seed`. */
  setSeed(seed: number): void {
    this.seed = seed;
    this.random = seededRandom(seed);
  }

  /** Deletes one rule, or every rule when `id` is undefined; returns how many went. */
  remove(id?: string): number {
    const removed = id === undefined ? this.deps.store.faultRules.clear() : this.deps.store.faultRules.remove(id);
    if (id !== undefined && removed === 0)
      throw new SandboxError('resource_missing', `no fault rule ${id}; GET /_sandbox/faults lists them`, 'id');
    this.reload();
    return removed;
  }

  private refuseUnknownTargets(spec: string, param: string): void {
    const parsed = parseFaultSpec(spec);
    if ('problem' in parsed) return; // insert() answers the 400
    const { webhookEndpoints, credentials } = this.deps.store;
    for (const rule of parsed.rules) {
      if (rule.scope === 'endpoint' && !webhookEndpoints.get(rule.target)) {
        throw new SandboxError(
          'resource_missing',
          `${param} names endpoint ${rule.target}, but there is no webhook endpoint with that id; GET /v1/webhook_endpoints lists a merchant's endpoints (ids start with we_)`,
          param,
        );
      }
      if (rule.merchant !== '' && !credentials.merchant(rule.merchant)) {
        throw new SandboxError(
          'resource_missing',
          `${param} names merchant ${rule.merchant}, but there is no merchant with that id; GET /_sandbox/merchants lists them`,
          param,
        );
      }
    }
  }

  private insert(spec: string, source: FaultRule['source'], param: string): FaultRule[] {
    const parsed = parseFaultSpec(spec);
    if ('problem' in parsed) throw new SandboxError('parameter_invalid', `${param} ${parsed.problem}`, param);
    const now = this.deps.clock.now();
    return parsed.rules.map((rule) => {
      const stored: FaultRule = { id: newId('flt'), ...rule, source, createdAt: now };
      this.deps.store.faultRules.upsert(stored);
      return stored;
    });
  }

  /** Reads the rules again: after rows of the table were deleted behind the injector (a merchant's reset or deletion). */
  reload(): void {
    this.rules = this.deps.store.faultRules.all();
    this.webhookRules = this.rules.filter((rule) => !isApiFault(rule.fault));
    this.apiRules = this.rules
      .filter((rule) => isApiFault(rule.fault))
      .flatMap((rule): ApiFaultRule[] => {
        if (rule.scope !== 'route') return [{ rule, route: null }];
        // A stored route that no longer parses (an imported snapshot, an older version's rule) matches nothing, never every route.
        const parsed = parseRoutePattern(rule.target);
        return 'pattern' in parsed ? [{ rule, route: parsed.pattern }] : [];
      });
  }
}
