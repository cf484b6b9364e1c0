// A small client of the control API (/_sandbox/...) for the CLI commands that talk to a running
// sandbox. --url (or SANDBOX_URL) picks the sandbox, --control-token (or SANDBOX_CONTROL_TOKEN)
// is sent as a bearer. Errors become one CliError line, never a stack trace.
import { Option, type Command } from 'commander';
import { ApiError, CliError } from './cli-error.js';
import { CLIENT_ENV } from '../config.js';
import { isUntrustedCertificate, TRUST_HINT } from '../tls/untrusted.js';
import { errorMessage } from '../errors.js';
import { formatDuration } from '../domain/duration.js';

/** Where the CLI finds a sandbox when neither --url nor SANDBOX_URL says. */
export const DEFAULT_SANDBOX_URL = 'http://127.0.0.1:4010';

/** The flags every client command takes. */
export interface ClientFlags {
  url: string;
  controlToken?: string;
  json?: boolean;
}

/** Adds --url and --control-token to a command (commander reads the env defaults; an empty variable counts as unset). */
export function sandboxOptions(command: Command, what = 'the sandbox to talk to'): Command {
  return command
    .addOption(new Option('--url <url>', what).env(CLIENT_ENV.url).default(DEFAULT_SANDBOX_URL))
    .addOption(
      new Option('--control-token <token>', 'bearer token, when the sandbox was started with --control-token').env(CLIENT_ENV.controlToken),
    );
}

/** Adds --url, --control-token and --json to a command. */
export function clientOptions(command: Command): Command {
  return sandboxOptions(command).option('--json', 'print JSON instead of text');
}

/** One parsed Server-Sent Event. */
export interface StreamEvent {
  event: string;
  data: string;
}

/** Talks to one sandbox's control API. */
export class ControlClient {
  readonly base: string;

  /** `timeoutMs` bounds each request (health checks must not hang); without it a request waits as long as the sandbox takes. */
  constructor(private readonly flags: Pick<ClientFlags, 'url' | 'controlToken'> & { timeoutMs?: number }) {
    this.base = flags.url.replace(/\/+$/, '');
    if (!URL.canParse(this.base) || !/^https?:$/.test(new URL(this.base).protocol)) {
      throw new CliError(`--url "${flags.url}" is malformed: give the sandbox's base URL, such as ${DEFAULT_SANDBOX_URL}`);
    }
  }

  /** GET a control path with query parameters (undefined ones left out). */
  get<T>(path: string, query: Record<string, string | number | undefined> = {}): Promise<T> {
    const params = new URLSearchParams();
    for (const [key, value] of Object.entries(query)) if (value !== undefined) params.set(key, String(value));
    const search = params.size ? `?${params}` : '';
    return this.call<T>('GET', path + search);
  }

  /** Every item of a paged control list, following has_more with starting_after (1000 a page). */
  async listAll<T extends { id: string }>(path: string, query: Record<string, string | number | undefined> = {}): Promise<T[]> {
    const items: T[] = [];
    let after: string | undefined;
    for (;;) {
      const page = await this.get<{ data: T[]; has_more: boolean }>(path, { ...query, limit: 1000, starting_after: after });
      items.push(...page.data);
      if (!page.has_more || page.data.length === 0) return items;
      after = page.data[page.data.length - 1].id;
    }
  }

  /** POST a JSON body to a control path. */
  post<T>(path: string, body: Record<string, unknown> = {}): Promise<T> {
    return this.call<T>('POST', path, body);
  }

  /** DELETE a control path (with an empty JSON body: the control API takes only JSON writes). */
  delete<T>(path: string): Promise<T> {
    return this.call<T>('DELETE', path, {});
  }

  /** Reads /_sandbox/stream until `signal` aborts, calling `onEvent` for each event. */
  async stream(onEvent: (event: StreamEvent) => void | Promise<void>, signal: AbortSignal, onOpen?: () => void): Promise<void> {
    const res = await this.fetch('/_sandbox/stream', { headers: this.headers(), signal });
    if (!res.ok || !res.body) throw await this.failure(res);
    onOpen?.();
    const decoder = new TextDecoder();
    let buffer = '';
    try {
      for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
        buffer += decoder.decode(chunk, { stream: true });
        for (let end = buffer.indexOf('\n\n'); end >= 0; end = buffer.indexOf('\n\n')) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          let event = 'message';
          const data: string[] = [];
          for (const line of block.split('\n')) {
            if (line.startsWith('event: ')) event = line.slice(7);
            else if (line.startsWith('data: ')) data.push(line.slice(6));
          }
          // Comment-only blocks (": heartbeat") carry no data.
          if (data.length) await onEvent({ event, data: data.join('\n') });
        }
      }
    } catch (err) {
      if (!signal.aborted) throw new CliError(`the stream from ${this.base} broke: ${errorMessage(err)}`, 'stream_broken');
    }
  }

  private headers(json = false): Record<string, string> {
    const headers: Record<string, string> = {};
    if (json) headers['content-type'] = 'application/json';
    if (this.flags.controlToken) headers.authorization = `Bearer ${this.flags.controlToken}`;
    return headers;
  }

  private async call<T>(method: string, path: string, body?: Record<string, unknown>): Promise<T> {
    const res = await this.fetch(`/_sandbox${path}`, {
      method,
      headers: this.headers(body !== undefined),
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    if (!res.ok) throw await this.failure(res);
    const text = await this.body(res);
    try {
      return JSON.parse(text) as T;
    } catch {
      throw new CliError(
        `${this.base} answered, but it is not a sandbox's control API (--url is the sandbox's address; a webhook URL filter is --to)`,
        'not_a_sandbox',
      );
    }
  }

  private async fetch(path: string, init: RequestInit): Promise<Response> {
    const { timeoutMs } = this.flags;
    const signal =
      timeoutMs === undefined ? init.signal : AbortSignal.any([AbortSignal.timeout(timeoutMs), ...(init.signal ? [init.signal] : [])]);
    try {
      return await fetch(this.base + path, { ...init, signal });
    } catch (err) {
      if ((err as Error).name === 'TimeoutError') throw this.timedOut();
      if ((err as Error).name === 'AbortError') throw err;
      if (isUntrustedCertificate(err))
        throw new CliError(`${this.base} answered with a certificate this command does not trust; ${TRUST_HINT}`, 'certificate_untrusted');
      throw new CliError(`no sandbox answers at ${this.base}; start one with \`npx sandbox start\``, 'sandbox_unreachable');
    }
  }

  /** The answer's text; a body that stalls past the timeout is the same one-line failure as no answer. */
  private async body(res: Response): Promise<string> {
    try {
      return await res.text();
    } catch (err) {
      if ((err as Error).name === 'TimeoutError') throw this.timedOut();
      throw err;
    }
  }

  private timedOut(): CliError {
    return new CliError(`${this.base} did not answer within ${formatDuration(this.flags.timeoutMs ?? 0)}`, 'sandbox_unreachable');
  }

  private async failure(res: Response): Promise<CliError> {
    const text = await this.body(res);
    let error: unknown;
    try {
      error = (JSON.parse(text) as { error?: unknown }).error;
    } catch {
      // Not JSON: not the sandbox's error body.
    }
    const body = error as { code?: unknown; message?: unknown } | undefined;
    if (typeof body?.code === 'string' && typeof body.message === 'string')
      return new ApiError(res.status, body as { code: string; message: string });
    return new CliError(`${this.base} answered ${res.status}: ${text.slice(0, 200)}`, 'not_a_sandbox');
  }
}
