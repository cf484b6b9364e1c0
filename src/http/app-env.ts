// The types every route module and middleware share: what the HTTP layer is built from (AppDeps)
// and the variables middleware sets on a request (AppEnv). They live apart from app.ts, which
// imports every route module, so no route imports the module that mounts it.
import type { Context } from 'hono';
import type { Config } from '../config.js';
import type { ScriptedOutcome } from '../domain/outcomes.js';
import type { Logger } from '../runtime/logger.js';
import type { Services } from '../services/services.js';
import type { Tracer } from '../runtime/tracing.js';
import type { Merchant, Terminal } from '../store/credentials-repo.js';
import type { AnswerTrail } from '../store/group-commit.js';

/** The variables middleware sets, read as c.get(name) (Hono's c.var builds a new object of them all on each read): typed here, so no route casts them. */
export type AppEnv = {
  Variables: {
    /** Set by requestContext on every request. */
    requestId: string;
    /** Set by bearerAuth on every /v1/ request. */
    merchant?: Merchant;
    /** Set by durableAnswer: the batches the request's writes went into, which its answer waits for (group-commit.ts). */
    answer?: AnswerTrail;
    /** Set by apiFaults when a fault is injected; the access log line shows it. */
    fault?: string;
    /** Set by the outcome override when a header or a scenario entry forced the outcome; the request journal keeps it. */
    script?: string;
  };
};

/** Decides a forced outcome for one request (X-Sandbox-Outcome header, scenarios). */
export type OutcomeOverride = (
  c: Context<AppEnv>,
  family: 's2s' | 'v1',
  input: Record<string, unknown>,
  terminal: Terminal | undefined,
) => ScriptedOutcome | undefined;

/** What the HTTP layer needs. */
export interface AppDeps {
  config: Config;
  logger: Logger;
  services: Services;
  /** Wakes the delivery worker and the job runner (after a requeue, a reset...). */
  wake(): void;
  /** Wakes the delivery worker only: a clock advance runs its due jobs itself, in turns, and wakes it after each. */
  wakeDeliveries(): void;
  forcedScript: OutcomeOverride;
  /** Makes the API requests' spans (--otlp); without it none are made. */
  tracer?: Tracer;
}
