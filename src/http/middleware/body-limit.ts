// The request body limit (413 above config.bodyLimitBytes) without materialising the request.
// hono/body-limit reads c.req.raw.body first, which makes @hono/node-server build a full
// WHATWG Request and stream for every request, GETs included; node:http already enforces
// Content-Length, so the header alone decides unless the body is chunked.
import type { MiddlewareHandler } from 'hono';
import { bodyLimit as streamingBodyLimit } from 'hono/body-limit';

/** Same options as hono/body-limit: the limit in bytes and what to do above it. */
export interface BodyLimitOptions {
  maxSize: number;
  onError: Parameters<typeof streamingBodyLimit>[0]['onError'];
}

function isNodeRequest(env: unknown): boolean {
  return typeof env === 'object' && env !== null && 'incoming' in env;
}

/** Checks Content-Length against `maxSize`; only chunked bodies are counted as they stream in. */
export function bodyLimit(options: BodyLimitOptions): MiddlewareHandler {
  const streaming = streamingBodyLimit(options);
  return async (c, next) => {
    const length = c.req.header('content-length');
    if (length !== undefined && c.req.header('transfer-encoding') === undefined) {
      return Number(length) > options.maxSize ? options.onError!(c) : next();
    }
    // Over a socket, no Content-Length and no Transfer-Encoding means no body (HTTP/1.1);
    // in-process app.request() bodies carry no such header and are counted instead.
    if (length === undefined && c.req.header('transfer-encoding') === undefined && isNodeRequest(c.env)) return next();
    return streaming(c, next);
  };
}
