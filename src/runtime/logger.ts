// One line per request and per webhook attempt: coloured for people, JSON lines for machines,
// nothing with --quiet. Secrets never reach it: callers pass paths and ids, never bodies or keys.
import kleur from 'kleur';
import type { LogFormat } from '../config.js';
import type { Delivery } from '../store/deliveries-repo.js';
import { formatDuration } from '../domain/duration.js';

/** A webhook attempt as the log shows it. */
export interface WebhookLogEntry {
  delivery: Delivery;
  attempt: number;
  status: string;
  /** What the merchant's server answered (the delivery worker's PostResult). */
  result: { status: number | null; errorKind: string | null; latencyMs: number };
  fault: string | null;
  retryIn: number | undefined;
}

/** The sandbox's log. */
export interface Logger {
  /** `fault`: the API faults injected into the request (api-faults middleware), e.g. "status=503". */
  request(entry: { method: string; path: string; status: number; ms: number; requestId: string; fault?: string }): void;
  webhook(entry: WebhookLogEntry): void;
  info(message: string, fields?: Record<string, unknown>): void;
  error(message: string, fields?: Record<string, unknown>): void;
}

// C0 controls, DEL, C1 controls (U+009B is a terminal's CSI), the Unicode line separators and the
// bidirectional formatting characters (U+202E shows what follows it backwards): a path with %0a or a
// webhook_url with ESC[31m must not forge a log line or colour the terminal. The CLI prints what
// comes from the network through the same escapes (cli/terminal-text.ts).
const CONTROLS = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;
const NAMED: Record<string, string> = { '\n': '\\n', '\r': '\\r', '\t': '\\t' };

/** `text` with every control character written as an escape (\n, \x1b, \u2028), for a log line. */
export function escapeControls(text: string): string {
  return text.replace(
    CONTROLS,
    (char) =>
      NAMED[char] ??
      (char.charCodeAt(0) < 0x100 ? `\\x${char.charCodeAt(0).toString(16).padStart(2, '0')}` : `\\u${char.charCodeAt(0).toString(16)}`),
  );
}

/**
 * JSON.stringify's text with the control characters it leaves raw (DEL, C1, U+2028/9, the
 * bidirectional ones) as \\u escapes: the same JSON value. The C0 controls in its text are the
 * line breaks of its indentation (it escapes those inside strings itself), so they stay.
 */
export function escapeJsonControls(json: string): string {
  return json.replace(CONTROLS, (char) => (char < ' ' ? char : `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`));
}

/** One JSON line. */
function jsonLine(fields: Record<string, unknown>): string {
  return escapeJsonControls(JSON.stringify(fields));
}

/** The frames of a stack (its "at" lines), indented so that nothing in them can pass for a log line. */
function stackLines(stack: unknown): string {
  if (typeof stack !== 'string') return '';
  const frames = stack.split('\n').filter((line) => /^\s+at /.test(line));
  return frames.map((line) => `\n    ${escapeControls(line.trim())}`).join('');
}

function statusColour(status: number): (text: string) => string {
  if (status >= 500) return kleur.red;
  if (status >= 400) return kleur.yellow;
  if (status >= 300) return kleur.cyan;
  return kleur.green;
}

/** Builds the logger; `write` defaults to stdout (tests pass their own). */
export function createLogger(options: { format: LogFormat; quiet: boolean; write?: (line: string) => void }): Logger {
  const write = options.write ?? ((line: string) => process.stdout.write(`${line}\n`));
  const prettyError = (msg: string, fields?: Record<string, unknown>) =>
    write(kleur.red(escapeControls(msg)) + kleur.dim(stackLines(fields?.stack)));
  if (options.quiet)
    return {
      request() {},
      webhook() {},
      info() {},
      error: (m, f) => (options.format === 'json' ? write(jsonLine({ level: 'error', msg: m, ...f })) : prettyError(`error ${m}`, f)),
    };
  return options.format === 'json' ? jsonLogger(write) : prettyLogger(write, prettyError);
}

type Write = (line: string) => void;

/** --log-format json: one JSON object a line, stamped with the time. */
function jsonLogger(write: Write): Logger {
  const json = (fields: Record<string, unknown>) => write(jsonLine({ time: new Date().toISOString(), ...fields }));
  return {
    request: (e) =>
      json({
        type: 'request',
        method: e.method,
        path: e.path,
        status: e.status,
        ms: e.ms,
        request_id: e.requestId,
        fault: e.fault ?? null,
      }),
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

/** --log-format pretty: coloured lines for people, the time of day first. */
function prettyLogger(write: Write, prettyError: Logger['error']): Logger {
  return {
    request: (e) =>
      write(
        `${kleur.dim(new Date().toISOString().slice(11, 23))} ${kleur.bold(escapeControls(e.method).padEnd(6))} ${escapeControls(e.path)} ${statusColour(e.status)(String(e.status))} ${kleur.dim(`${e.ms.toFixed(1)}ms`)}${e.fault ? kleur.magenta(` [fault: ${escapeControls(e.fault)}]`) : ''}`,
      ),
    webhook: (e) => {
      const answer =
        e.result.status !== null ? statusColour(e.result.status)(String(e.result.status)) : kleur.red(e.result.errorKind ?? 'error');
      const next =
        e.status === 'pending' && e.retryIn !== undefined
          ? kleur.dim(` retry in ${formatDuration(e.retryIn)}`)
          : e.status === 'failed'
            ? kleur.red(' gave up')
            : '';
      const fault = e.fault ? kleur.magenta(` [${escapeControls(e.fault)}]`) : '';
      write(
        `${kleur.dim(new Date().toISOString().slice(11, 23))} ${kleur.magenta('webhook')} ${escapeControls(e.delivery.eventType)} -> ${escapeControls(e.delivery.url)} #${e.attempt} ${answer} ${kleur.dim(`${e.result.latencyMs.toFixed(1)}ms`)}${next}${fault}`,
      );
    },
    info: (msg) => write(escapeControls(msg)),
    error: prettyError,
  };
}

/** A logger that writes nothing (tests, library use with quiet: true). */
export const silentLogger: Logger = { request() {}, webhook() {}, info() {}, error() {} };
