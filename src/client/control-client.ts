// The one client of the control API (/_sandbox/...): the CLI's commands and the MCP server's tools
// talk to a sandbox through it. `url` picks the sandbox, `controlToken` is sent as a bearer, and
// `fetch` is how a request travels: over the network by default (node:http, http-transport.ts), or
// straight into the app for the MCP route a sandbox serves itself (http/control/mcp.ts). Errors are
// ClientErrors, never a stack trace.
import { errorMessage } from '../errors.js';
import { isUntrustedCertificate, TRUST_HINT } from '../tls/untrusted.js';
import { ApiError, ClientError } from './client-error.js';
import { httpTransport, type Transport, type TransportAnswer, type TransportRequest } from './http-transport.js';
import { formatDuration } from '../domain/duration.js';

/** Where a client finds a sandbox when neither --url nor SANDBOX_URL says. */
export const DEFAULT_SANDBOX_URL = 'http://127.0.0.1:4010';

/** One parsed Server-Sent Event. */
export interface StreamEvent {
  event: string;
  data: string;
}

/** Which sandbox a client talks to, and how. */
export interface ControlClientOptions {
  url: string;
  controlToken?: string;
  /** How a request travels (default: node:http, http-transport.ts; a fetch fits too). */
  fetch?: Transport;
  /** Bounds each request (health checks must not hang); without it a request waits as long as the sandbox takes. */
  timeoutMs?: number;
}

/** Talks to one sandbox's control API. */
export class ControlClient {
  readonly base: string;
  private readonly send: NonNullable<ControlClientOptions['fetch']>;

  constructor(private readonly flags: ControlClientOptions) {
    this.base = flags.url.replace(/\/+$/, '');
    if (!URL.canParse(this.base) || !/^https?:$/.test(new URL(this.base).protocol)) {
      throw new ClientError(`--url "${flags.url}" is malformed: give the sandbox's base URL, such as ${DEFAULT_SANDBOX_URL}`);
    }
    this.send = flags.fetch ?? httpTransport;
  }

  /** GET a control path with query parameters (undefined ones left out). */
  get<T>(path: string, query: Record<string, string | number | undefined> = {}): Promise<T> {
    const params = new URLSearchParams();
    for (const [key, value] of Object.entries(query)) if (value !== undefined) params.set(key, String(value));
    const search = params.size ? `?${params}` : '';
    return this.call<T>('GET', `/_sandbox${path}${search}`);
  }

  /** GET a JSON document outside the control API, such as /openapi.json. */
  document<T>(path: string): Promise<T> {
    return this.call<T>('GET', path);
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
    return this.call<T>('POST', `/_sandbox${path}`, body);
  }

  /** POST a JSON body to a path of the payment APIs (/v1/..., /api/...), with extra headers such as the API key. */
  postApi<T>(path: string, body: Record<string, unknown>, headers: Record<string, string> = {}): Promise<T> {
    return this.call<T>('POST', path, body, headers);
  }

  /** DELETE a control path (with an empty JSON body: the control API takes only JSON writes). */
  delete<T>(path: string): Promise<T> {
    return this.call<T>('DELETE', `/_sandbox${path}`, {});
  }

  /** Reads /_sandbox/stream until `signal` aborts, calling `onEvent` for each event. */
  async stream(onEvent: (event: StreamEvent) => void | Promise<void>, signal: AbortSignal, onOpen?: () => void): Promise<void> {
    const res = await this.fetch('/_sandbox/stream', { headers: this.headers(), signal });
    if (!res.ok || !res.body) throw await this.failure(res);
    onOpen?.();
    const decoder = new TextDecoder();
    let buffer = '';
    try {
      // Node's web ReadableStream is async iterable too (the DOM typings do not say so).
      for await (const chunk of res.body as AsyncIterable<Uint8Array>) {
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
      if (!signal.aborted) throw new ClientError(`the stream from ${this.base} broke: ${errorMessage(err)}`, 'stream_broken');
    }
  }

  private headers(json = false): Record<string, string> {
    const headers: Record<string, string> = {};
    if (json) headers['content-type'] = 'application/json';
    if (this.flags.controlToken) headers.authorization = `Bearer ${this.flags.controlToken}`;
    return headers;
  }

  private async call<T>(method: string, path: string, body?: Record<string, unknown>, extra: Record<string, string> = {}): Promise<T> {
    const res = await this.fetch(path, {
      method,
      headers: { ...this.headers(body !== undefined), ...extra },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    if (!res.ok) throw await this.failure(res);
    const text = await this.body(res);
    try {
      return JSON.parse(text) as T;
    } catch {
      throw new ClientError(
        `${this.base} answered, but it is not a sandbox's control API (--url is the sandbox's address; a webhook URL filter is --to)`,
        'not_a_sandbox',
      );
    }
  }

  private async fetch(path: string, init: TransportRequest): Promise<TransportAnswer> {
    const { timeoutMs } = this.flags;
    const signal =
      timeoutMs === undefined ? init.signal : AbortSignal.any([AbortSignal.timeout(timeoutMs), ...(init.signal ? [init.signal] : [])]);
    try {
      return await this.send(this.base + path, { ...init, signal });
    } catch (err) {
      if ((err as Error).name === 'TimeoutError') throw this.timedOut();
      if ((err as Error).name === 'AbortError') throw err;
      if (isUntrustedCertificate(err))
        throw new ClientError(
          `${this.base} answered with a certificate this command does not trust; ${TRUST_HINT}`,
          'certificate_untrusted',
        );
      throw new ClientError(`no sandbox answers at ${this.base}; start one with \`npx sandbox start\``, 'sandbox_unreachable');
    }
  }

  /** The answer's text; a body that stalls past the timeout is the same one-line failure as no answer. */
  private async body(res: TransportAnswer): Promise<string> {
    try {
      return await res.text();
    } catch (err) {
      if ((err as Error).name === 'TimeoutError') throw this.timedOut();
      throw err;
    }
  }

  private timedOut(): ClientError {
    return new ClientError(`${this.base} did not answer within ${formatDuration(this.flags.timeoutMs ?? 0)}`, 'sandbox_unreachable');
  }

  private async failure(res: TransportAnswer): Promise<ClientError> {
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
    return new ClientError(`${this.base} answered ${res.status}: ${text.slice(0, 200)}`, 'not_a_sandbox');
  }
}
