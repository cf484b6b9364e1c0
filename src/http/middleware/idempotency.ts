// The Idempotency-Key header on every POST of the public API (/api/* and /v1/*). Keys belong to
// the merchant the request authenticates as (request-merchant.ts): the bearer key for /v1/, the
// terminal credentials inside the body for /api/. A request whose credentials authenticate no
// merchant runs without idempotency: it can only end in an error that changes nothing.
import { bodyText } from '../validation.js';
import type { MiddlewareHandler } from 'hono';
import { createMiddleware } from 'hono/factory';
import type { AppEnv } from '../app-env.js';
import { SandboxError } from '../../errors.js';
import type { Services } from '../../services/services.js';
import { authenticatedMerchant } from './request-merchant.js';
import { answerText } from './answer-body.js';

/** The request header and the header on replayed answers. */
export const IDEMPOTENCY_HEADER = 'Idempotency-Key';
export const REPLAYED_HEADER = 'Idempotent-Replayed';

const KEY_PATTERN = /^[\x20-\x7e]{1,255}$/;

/** Answers a merchant may get again: success and client errors (a 5xx is worth retrying for real). */
const storable = (status: number) => (status >= 200 && status < 300) || (status >= 400 && status < 500);

/** Replays, refuses or records POSTs that carry an Idempotency-Key. */
export function idempotency(services: Services): MiddlewareHandler<AppEnv> {
  return createMiddleware<AppEnv>(async (c, next) => {
    const key = c.req.header(IDEMPOTENCY_HEADER);
    const path = c.req.path;
    if (key === undefined || c.req.method !== 'POST' || !(path.startsWith('/api/') || path.startsWith('/v1/'))) return next();
    if (!KEY_PATTERN.test(key)) {
      throw new SandboxError(
        'parameter_invalid',
        `the ${IDEMPOTENCY_HEADER} header must be 1-255 printable ASCII characters, such as a UUID; got ${key.length} characters`,
        IDEMPOTENCY_HEADER,
      );
    }
    const body = await bodyText(c);
    const scope = authenticatedMerchant(services, c, body);
    if (scope === undefined) return next();

    const admission = await services.idempotency.admit({ scope, key, method: c.req.method, path, body });
    if (admission.kind === 'replay') {
      const { answer } = admission;
      return new Response(answer.body, { status: answer.status, headers: { ...answer.headers, [REPLAYED_HEADER]: 'true' } });
    }
    let stored = false;
    try {
      await next();
      const answer = c.res;
      if (storable(answer.status)) {
        const headers: Record<string, string> = {};
        answer.headers.forEach((value, name) => {
          if (name !== 'set-cookie') headers[name] = value;
        });
        const kept = { status: answer.status, headers, body: await answerText(c) };
        // After awaits: tied to this answer explicitly, so its batch failing fails this answer (group-commit.ts).
        services.batch.within(c.get('answer'), () => services.idempotency.complete(scope, key, kept));
        stored = true;
      }
    } finally {
      if (!stored) services.idempotency.release(scope, key);
    }
  });
}
