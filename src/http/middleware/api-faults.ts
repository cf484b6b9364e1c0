// API faults on /api/* and /v1/* (docs/api-faults.md): the X-Sandbox-Fault request header, else
// the standing API fault rules, for requests that authenticate (after bearerAuth on /v1/; on /api/
// the body's terminal credentials are checked here as the route checks them). Runs before the
// write lock (taken for one turn's batch), so a request that waits (latency=, timeout) takes it
// after its wait, and before idempotency, so a status/reset/timeout answer consumes no
// Idempotency-Key and changes nothing. lost-answer runs the request, waits for its commit (its
// answer is then stored under its Idempotency-Key), and only then drops it.
import type { ServerResponse, IncomingMessage } from 'node:http';
import type { Context, MiddlewareHandler } from 'hono';
import { createMiddleware } from 'hono/factory';
import { RESPONSE_ALREADY_SENT } from '@hono/node-server/utils/response';
import { FAULT_HEADER, faultLabel, parseFaultHeader, type ApiFault } from '../../domain/api-faults.js';
import { parseDuration } from '../../domain/duration.js';
import { SandboxError, type ErrorCode, present } from '../../errors.js';
import { authenticatedMerchant } from './request-merchant.js';
import { bodyText } from '../validation.js';
import type { AppDeps, AppEnv } from '../app-env.js';

/** The catalogue code of each status= answer. */
const STATUS_CODES: Record<string, ErrorCode> = {
  '429': 'injected_rate_limit',
  '500': 'injected_server_error',
  '502': 'injected_bad_gateway',
  '503': 'injected_unavailable',
  '504': 'injected_gateway_timeout',
};

/** Retry-After (seconds) of the injected 503 and 429: short, so a merchant's retry loop is quick to rehearse. */
export const FAULT_RETRY_AFTER_S = 1;

/** The node:http pair under the request; undefined in-process (app.request() in route tests). */
type NodeEnv = { incoming?: IncomingMessage; outgoing?: ServerResponse } | undefined;

/** Ends the exchange without an answer: a TCP reset for `reset`, a plain close otherwise. */
function withhold(c: Context<AppEnv>, how: 'reset' | 'close'): Response {
  const env = c.env as NodeEnv;
  const socket = env?.incoming?.socket;
  if (how === 'reset' && socket && typeof socket.resetAndDestroy === 'function') socket.resetAndDestroy();
  else env?.outgoing?.destroy();
  // @hono/node-server writes nothing for this answer; a fresh one, since requestContext adds a header to it.
  c.res = undefined;
  c.res = new Response(null, { status: 444, headers: RESPONSE_ALREADY_SENT.headers });
  return c.res;
}

/** Waits `ms`, or less when the client closes the connection first. */
function hold(c: Context<AppEnv>, ms: number): Promise<void> {
  const outgoing = (c.env as NodeEnv)?.outgoing;
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      outgoing?.off('close', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    outgoing?.once('close', done);
  });
}

/** The merchant the request authenticates as (request-merchant.ts); undefined when it does not. */
async function merchantOf(deps: AppDeps, c: Context<AppEnv>): Promise<string | undefined> {
  // /v1/ asks c.get('merchant') (bearerAuth ran); /api/ reads the body, which the route reads again from the cache.
  const body = c.req.path.startsWith('/v1/') || c.req.method === 'GET' ? '' : await bodyText(c).catch(() => undefined);
  return body === undefined ? undefined : authenticatedMerchant(deps.services, c, body);
}

/**
 * The faults this request gets: the header's, else the standing rules that fire; empty for none.
 * Only a request that authenticates gets any: a wrong key or terminal keeps its 401 (or the other
 * 4xx its route answers), and a request without credentials cannot be told 503 by a rule.
 */
async function faultsFor(deps: AppDeps, c: Context<AppEnv>): Promise<{ faults: ApiFault[]; origin: string }> {
  const none = { faults: [], origin: '' };
  const { faults } = deps.services;
  const header = c.req.header(FAULT_HEADER);
  const matched = header === undefined ? faults.apiRulesFor(c.req.method, c.req.path) : [];
  if (header === undefined && matched.length === 0) return none;
  const merchant = await merchantOf(deps, c);
  if (merchant === undefined) return none;
  if (header !== undefined) {
    const parsed = parseFaultHeader(header);
    if ('problem' in parsed) throw new SandboxError('parameter_invalid', `the ${FAULT_HEADER} header ${parsed.problem}`, FAULT_HEADER);
    return { faults: parsed.faults, origin: 'header' };
  }
  const fired = faults.drawApiFaults(matched, merchant);
  return { faults: fired, origin: [...new Set(fired.map((f) => f.ruleId))].join(', ') };
}

/** Applies X-Sandbox-Fault and the standing API fault rules to /api/* and /v1/* requests. */
export function apiFaults(deps: AppDeps): MiddlewareHandler<AppEnv> {
  const { faults, batch } = deps.services;
  return createMiddleware<AppEnv>(async (c, next) => {
    const path = c.req.path;
    if (!path.startsWith('/api/') && !path.startsWith('/v1/')) return next();
    const chosen = await faultsFor(deps, c);
    if (chosen.faults.length === 0) return next();
    const label = faultLabel(chosen.faults);
    c.set('fault', label);
    faults.recordInjected({
      at: deps.services.clock.now(),
      requestId: c.get('requestId'),
      method: c.req.method,
      path,
      fault: label,
      origin: chosen.origin,
    });

    const latency = chosen.faults.find((f) => f.kind === 'latency');
    if (latency) await hold(c, present(parseDuration(latency.value ?? ''), "the latency fault's duration"));
    const ending = chosen.faults.find((f) => f.kind !== 'latency');
    if (!ending) return next();
    if (ending.kind === 'status') {
      const retry = ending.value === '503' || ending.value === '429' ? { 'Retry-After': String(FAULT_RETRY_AFTER_S) } : undefined;
      const same = c.req.method === 'POST' ? ' with the same Idempotency-Key' : '';
      const advice = retry ? `retry after ${FAULT_RETRY_AFTER_S} s${same}` : `retry the request${same}`;
      const source = chosen.origin === 'header' ? `the ${FAULT_HEADER} header` : `fault rule ${chosen.origin}`;
      throw new SandboxError(
        STATUS_CODES[present(ending.value, "the status fault's code")],
        `${source} asked for status=${ending.value}: an injected fault, nothing was changed; ${advice}`,
        undefined,
        retry,
      );
    }
    // The log's status for an answer never sent is 444 (nginx's "no response"); the label says what happened.
    if (ending.kind === 'reset') {
      c.set('fault', `${label} (connection reset, no answer)`);
      return withhold(c, 'reset');
    }
    if (ending.kind === 'timeout') {
      c.set('fault', `${label} (held, then closed without an answer)`);
      await hold(c, deps.config.faultTimeoutMs);
      return withhold(c, 'close');
    }
    // lost-answer: the work and its stored idempotent answer are committed before the answer is dropped.
    await next();
    await batch.committed(c.get('answer'));
    c.set('fault', `${label} (${c.res.status} committed, not sent)`);
    return withhold(c, 'close');
  });
}
