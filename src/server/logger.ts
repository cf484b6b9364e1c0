// One line per request and per webhook attempt: coloured for people, JSON lines for machines,
// nothing with --quiet. Secrets never reach it: callers pass paths and ids, never bodies or keys.
import kleur from 'kleur';
import type { LogFormat } from '../config.js';
import type { Delivery } from '../store/deliveries-repo.js';
import type { PostResult } from '../webhooks/http-sender.js';
import { formatDuration } from '../domain/duration.js';

/** A webhook attempt as the log shows it. */
export interface WebhookLogEntry {
  delivery: Delivery;
  attempt: number;
  status: string;
  result: PostResult;
  fault: string | null;
  retryIn: number | undefined;
}

/** The sandbox's log. */
export interface Logger {
  request(entry: { method: string; path: string; status: number; ms: number; requestId: string }): void;
  webhook(entry: WebhookLogEntry): void;
  info(message: string, fields?: Record<string, unknown>): void;
  error(message: string, fields?: Record<string, unknown>): void;
}

function statusColour(status: number): (text: string) => string {
  if (status >= 500) return kleur.red;
  if (status >= 400) return kleur.yellow;
  if (status >= 300) return kleur.cyan;
  return kleur.green;
}

/** Builds the logger; `write` defaults to stdout (tests pass their own). */
export function createLogger(options: { format: LogFormat; quiet: boolean; write?: (line: string) => void }): Logger {
  const write = options.write ?? ((line: string) => process.stdout.write(line + '\n'));
  if (options.quiet) return { request() {}, webhook() {}, info() {}, error: (m, f) => write(options.format === 'json' ? JSON.stringify({ level: 'error', msg: m, ...f }) : kleur.red(`error ${m}`)) };
  if (options.format === 'json') {
    const json = (fields: Record<string, unknown>) => write(JSON.stringify({ time: new Date().toISOString(), ...fields }));
    return {
      request: (e) => json({ type: 'request', method: e.method, path: e.path, status: e.status, ms: e.ms, request_id: e.requestId }),
      webhook: (e) =>
        json({
          type: 'webhook',
          delivery_id: e.delivery.id,
          event: e.delivery.eventType,
          event_id: e.delivery.eventId,
          url: e.delivery.url,
          attempt: e.attempt,
          status: e.status,
          response_status: e.result.status,
          error: e.result.errorKind,
          ms: e.result.latencyMs,
          fault: e.fault,
          retry_in_ms: e.retryIn ?? null,
        }),
      info: (msg, fields) => json({ level: 'info', msg, ...fields }),
      error: (msg, fields) => json({ level: 'error', msg, ...fields }),
    };
  }
  return {
    request: (e) =>
      write(`${kleur.dim(new Date().toISOString().slice(11, 23))} ${kleur.bold(e.method.padEnd(6))} ${e.path} ${statusColour(e.status)(String(e.status))} ${kleur.dim(`${e.ms.toFixed(1)}ms`)}`),
    webhook: (e) => {
      const answer = e.result.status !== null ? statusColour(e.result.status)(String(e.result.status)) : kleur.red(e.result.errorKind ?? 'error');
      const next = e.status === 'pending' && e.retryIn !== undefined ? kleur.dim(` retry in ${formatDuration(e.retryIn)}`) : e.status === 'failed' ? kleur.red(' gave up') : '';
      const fault = e.fault ? kleur.magenta(` [${e.fault}]`) : '';
      write(`${kleur.dim(new Date().toISOString().slice(11, 23))} ${kleur.magenta('webhook')} ${e.delivery.eventType} -> ${e.delivery.url} #${e.attempt} ${answer} ${kleur.dim(`${e.result.latencyMs.toFixed(1)}ms`)}${next}${fault}`);
    },
    info: (msg) => write(msg),
    error: (msg) => write(kleur.red(msg)),
  };
}

/** A logger that writes nothing (tests, library use with quiet: true). */
export const silentLogger: Logger = { request() {}, webhook() {}, info() {}, error() {} };
