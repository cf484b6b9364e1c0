// The one HTTP helper of the suite: the same request shape and answer for the in-process app
// (app.request) and for a real sandbox on a socket (fetch), so a test reads alike in both. Every
// answer is validated against the OpenAPI document on the way (conformance.ts).
import { checkAnswer } from './conformance.js';
import type { Json } from './json.js';

/** Sends one request: the in-process app's `request` or `fetch` against a base URL. */
export type Send = (path: string, init: RequestInit) => Promise<Response>;

/** What a test sees of an answer: the body read once, as text and (when it parses) as JSON. */
export interface HttpAnswer {
  status: number;
  headers: Headers;
  text: string;
  json: Json;
}

/**
 * A client over `send`: `body` objects go as JSON, strings as they are, and a body-less control write as {} (as the CLI sends it).
 * `defaults` go with every request (a bearer key, say); a request's own headers win.
 */
export function httpClient(send: Send, defaults: Record<string, string> = {}) {
  /** Sends `method path` and reads the whole answer; redirects are returned, not followed. */
  async function request(method: string, path: string, body?: unknown, ownHeaders: Record<string, string> = {}): Promise<HttpAnswer> {
    const headers = { ...defaults, ...ownHeaders };
    const init: RequestInit = { method, headers: { ...headers }, redirect: 'manual' };
    // The control API takes writes only as JSON; a test that means to send something else says so in headers.
    if (
      body === undefined &&
      method !== 'GET' &&
      method !== 'HEAD' &&
      path.startsWith('/_sandbox/') &&
      !Object.keys(headers).some((name) => name.toLowerCase() === 'content-type')
    )
      body = {};
    if (body !== undefined) {
      if (typeof body === 'string') init.body = body;
      else {
        init.body = JSON.stringify(body);
        (init.headers as Record<string, string>)['content-type'] ??= 'application/json';
      }
    }
    const res = await send(path, init);
    const text = await res.text();
    // Every answer a test reads is checked against /openapi.json (helpers/conformance.ts).
    checkAnswer({ method, path, status: res.status, contentType: res.headers.get('content-type'), text });
    let json: Json;
    try {
      json = JSON.parse(text);
    } catch {
      json = undefined;
    }
    return { status: res.status, headers: res.headers, text, json };
  }
  return {
    request,
    /** GET `path`. */
    get: (path: string, headers: Record<string, string> = {}) => request('GET', path, undefined, headers),
    /** POST `body` to `path`. */
    post: (path: string, body?: unknown, headers: Record<string, string> = {}) => request('POST', path, body, headers),
    /** POSTs `fields` to `path` as an HTML form would. */
    postForm: (path: string, fields: Record<string, string>, headers: Record<string, string> = {}) =>
      request('POST', path, new URLSearchParams(fields).toString(), { 'content-type': 'application/x-www-form-urlencoded', ...headers }),
  };
}

/** The client type. */
export type HttpClient = ReturnType<typeof httpClient>;

/** A client for a sandbox (or any server) listening at `baseUrl`, sending `defaults` (e.g. an Authorization header) with every request. */
export function api(baseUrl: string, defaults: Record<string, string> = {}): HttpClient {
  return httpClient((path, init) => fetch(baseUrl + path, init), defaults);
}
