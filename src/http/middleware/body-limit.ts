// The request body limit (413 above config.bodyLimitBytes) without materialising the request.
// Reading c.req.raw.body makes @hono/node-server build a full WHATWG Request and stream for every
// request, GETs included; node:http already enforces Content-Length, so the header alone decides
// unless the body is chunked. A chunked body is read here, counted as it streams in:
// - cut off (the client closed mid-body) or malformed (a bad chunk size): a 400 body_incomplete,
//   the client's mistake, not a 500 with a stack in the log;
// - over the limit: the rest is read and dropped (bounded), then a 413 with Connection: close, so the
//   client reads the whole answer and then EOF. Closing with unread bytes in the socket would reset it.
import type { Context, MiddlewareHandler } from 'hono';
import { createMiddleware } from 'hono/factory';
import type { AppEnv } from '../app-env.js';
import { SandboxError } from '../../errors.js';
import { DRAIN_BYTES, DRAIN_MS } from '../oversized-body.js';

/** The limit in bytes and what to answer above it (onError throws or returns the 413). */
export interface BodyLimitOptions {
  maxSize: number;
  onError: (c: Context) => Response | Promise<Response>;
}

function isNodeRequest(env: unknown): boolean {
  return typeof env === 'object' && env !== null && 'incoming' in env;
}

function incomplete(): SandboxError {
  return new SandboxError(
    'body_incomplete',
    'the body ended before its end: the connection closed mid-body or its chunked encoding is malformed; send the whole body',
  );
}

/** Reads and drops what is left of a body, up to DRAIN_BYTES or DRAIN_MS. */
async function drain(reader: ReadableStreamDefaultReader<Uint8Array>): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<'late'>((resolve) => (timer = setTimeout(resolve, DRAIN_MS, 'late')));
  let dropped = 0;
  try {
    while (dropped <= DRAIN_BYTES) {
      const next = await Promise.race([reader.read(), late]);
      if (next === 'late' || next.done) return;
      dropped += next.value.length;
    }
  } catch {
    // The client went away while its body was being dropped: the answer goes nowhere anyway.
  } finally {
    clearTimeout(timer);
  }
}

/** Reads a chunked (or in-process) body up to maxSize; undefined when it went over the limit. */
async function readCounted(body: ReadableStream<Uint8Array>, maxSize: number): Promise<Uint8Array<ArrayBuffer> | undefined> {
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    let next: Awaited<ReturnType<typeof reader.read>>;
    try {
      next = await reader.read();
    } catch {
      throw incomplete();
    }
    if (next.done) break;
    size += next.value.length;
    if (size > maxSize) {
      await drain(reader);
      return undefined;
    }
    chunks.push(next.value);
  }
  return Buffer.concat(chunks, size);
}

/** Checks Content-Length against `maxSize`; only chunked bodies are counted as they stream in. */
export function bodyLimit(options: BodyLimitOptions): MiddlewareHandler<AppEnv> {
  return createMiddleware<AppEnv>(async (c, next) => {
    const length = c.req.header('content-length');
    if (length !== undefined && c.req.header('transfer-encoding') === undefined) {
      return Number(length) > options.maxSize ? options.onError(c) : next();
    }
    // Over a socket, no Content-Length and no Transfer-Encoding means no body (HTTP/1.1);
    // in-process app.request() bodies carry no such header and are counted instead.
    if (length === undefined && c.req.header('transfer-encoding') === undefined && isNodeRequest(c.env)) return next();
    if (!c.req.raw.body) return next();
    const body = await readCounted(c.req.raw.body, options.maxSize);
    if (body === undefined) {
      // The connection ends after this answer: the client may still have had bytes to send.
      c.header('Connection', 'close');
      return options.onError(c);
    }
    c.req.raw = new Request(c.req.raw, { body });
    return next();
  });
}
