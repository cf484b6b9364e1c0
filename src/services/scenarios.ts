// Scripted outcomes for CI: a queue of entries loaded from a scenario file (--scenario FILE) or
// POST /_sandbox/scenarios. The first entry with uses left that matches a payment decides its
// outcome and loses one use. Precedence: X-Sandbox-Outcome header, scenario, test card/VPA, default.
import { basename } from 'node:path';
import { readScenarioFile, resolveScenarioFile, type ScenarioDocument } from '../contracts/scenario-file.js';
import { parseOutcomeSpec } from '../domain/outcome-spec.js';
import type { ScriptedOutcome } from '../domain/outcomes.js';
import { SandboxError, present } from '../errors.js';
import type { ScenarioEntry } from '../store/scenarios-repo.js';
import type { ServiceDeps } from './deps.js';
import type { FaultInjector } from '../faults/injector.js';
import type { Tokens } from './tokens.js';

/** What a payment offers to match on; absent facts match only entries that leave them open. */
export interface PaymentFacts {
  terNo?: number;
  /** The merchant whose credential made the request. */
  merchantId?: string;
  reference?: string;
  /** Minor units. */
  amount?: number;
  mop?: string;
}

/** "order-*" -> /^order-.*$/; text without * or ? matches only itself. */
function globToRegExp(glob: string): RegExp {
  const source = glob
    .replace(/[.+^${}()|[\]\\]/g, '\\$&')
    .replace(/\*/g, '.*')
    .replace(/\?/g, '.');
  return new RegExp(`^${source}$`, 's');
}

/** Whether an entry matches a payment: every field the entry sets must match. */
export function entryMatches(entry: ScenarioEntry, facts: PaymentFacts): boolean {
  if (entry.terNo !== null && entry.terNo !== facts.terNo) return false;
  if (entry.merchantId !== null && entry.merchantId !== facts.merchantId) return false;
  if (entry.amount !== null && entry.amount !== facts.amount) return false;
  if (entry.mop !== null && entry.mop.toLowerCase() !== facts.mop?.toLowerCase()) return false;
  if (entry.reference !== null && (facts.reference === undefined || !globToRegExp(entry.reference).test(facts.reference))) return false;
  return true;
}

/** The scenario queue. */
export class Scenarios {
  /** The --scenario file, resolved once (a shipped name or a path from the working directory at start). */
  private readonly startupFile: string | undefined;

  constructor(
    private readonly deps: ServiceDeps,
    /** Where a document's `faults` go. */
    private readonly faults: FaultInjector,
    /** Where a document's `tokens` (scripted futures of saved tokens) go. */
    private readonly tokens: Tokens,
  ) {
    // Read and checked now, as the sandbox is built, so a bad file stops the start; a reset reads it again.
    const option = deps.config.scenario;
    this.startupFile = option && resolveScenarioFile(option.file, option.from);
    this.loadStartupFile();
  }

  /** Appends a document's entries to the queue and adds its fault rules; returns how many entries were added. An unknown merchant is a 400 naming the entry. */
  add(doc: ScenarioDocument, source = 'api'): number {
    const { store, clock } = this.deps;
    const now = clock.now();
    doc.entries.forEach((e, index) => {
      if (e.merchant === undefined || store.credentials.merchant(e.merchant)) return;
      throw new SandboxError(
        'parameter_invalid',
        `entries[${index}].merchant: there is no merchant ${e.merchant}; GET /_sandbox/merchants lists them`,
        `entries.${index}.merchant`,
      );
    });
    const first = present(store.credentials.merchants()[0], "the fixtures' first merchant").id;
    // A posted document's tokens must be the named merchant's own; a --scenario file may outlive
    // its tokens (a reset removes them all), so there a missing one is skipped with a log line.
    const scripts = (doc.tokens ?? []).filter((t, index) => {
      const merchantId = t.merchant ?? first;
      if (source !== 'api' && !store.tokens.getForMerchant(t.token, merchantId)) {
        this.deps.logger.info(`scenario: tokens[${index}]: merchant ${merchantId} has no token ${t.token} (yet); its outcomes are skipped`);
        return false;
      }
      this.tokens.scriptable(merchantId, t.token, `tokens.${index}.token`);
      return true;
    });
    // A posted document's rules are control API rules; a --scenario file's are replaced when it reloads (loadStartupFile).
    if (doc.faults !== undefined && source === 'api') this.faults.add(doc.faults, 'faults');
    return store.tx(() => {
      for (const t of scripts) this.tokens.script(t.merchant ?? first, t.token, t.outcomes);
      for (const e of doc.entries) {
        store.scenarios.insert({
          scenario: doc.name ?? source,
          terNo: e.terNO ?? null,
          merchantId: e.merchant ?? null,
          reference: e.reference ?? null,
          amount: e.amount ?? null,
          mop: e.mop ?? null,
          outcome: e.outcome.trim().toLowerCase(),
          times: e.times,
          createdAt: now,
        });
      }
      return doc.entries.length;
    });
  }

  /** Every entry, spent ones included, in queue order. */
  list(): ScenarioEntry[] {
    return this.deps.store.scenarios.all();
  }

  /** Empties the queue; returns how many entries were removed. */
  clear(): number {
    return this.deps.store.scenarios.clear();
  }

  /**
   * The outcome of the first open entry matching the payment (spending one use), if any; `taken`
   * hears which entry it was (the request journal says a scenario step decided the payment).
   */
  take(facts: PaymentFacts, taken?: (label: string) => void): ScriptedOutcome | undefined {
    const { store } = this.deps;
    // Most runs have no scenario: answer without opening a unit of work on the request path.
    if (store.scenarios.open().length === 0) return undefined;
    return store.tx(() => {
      for (const entry of store.scenarios.open()) {
        if (entryMatches(entry, facts) && store.scenarios.use(entry.id)) {
          taken?.(`scenario ${entry.scenario} entry ${entry.id}: ${entry.outcome}`);
          return parseOutcomeSpec(entry.outcome);
        }
      }
      return undefined;
    });
  }

  /** Loads --scenario FILE into an empty queue (at start and after a reset). */
  loadStartupFile(): void {
    const path = this.startupFile;
    if (path === undefined) return;
    const doc = readScenarioFile(path, this.deps.config.scenario?.from);
    this.deps.store.tx(() => {
      this.clear();
      this.add(doc, basename(path, '.json'));
    });
    this.faults.replaceScenarioRules(doc.faults, 'faults');
  }
}
