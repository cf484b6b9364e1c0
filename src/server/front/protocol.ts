// What the front thread (front-thread.ts) and the main thread (front-server.ts) say to each other
// over the thread's port. Messages go in batches, at most one a turn each way: a request costs the
// main thread one structured clone of its method, URL, headers and body, and its answer one more.
import type { JournalNote } from '../../services/journal/journal-row.js';
import type { NewJournalRow } from '../../store/journal-repo.js';

/** A request the front thread read whole, for the main thread's app. */
export interface FrontRequest {
  id: number;
  method: string;
  url: string;
  /** node:http's `headers` (lower-case names). */
  headers: Record<string, string | string[] | undefined>;
  /** The connection's remote address, port and family. */
  remote: [string | undefined, number | undefined, string | undefined];
  /** True over --https. */
  secure: boolean;
  /** The body decoded as UTF-8, when it is valid UTF-8 (what bodyText() would decode). */
  text: string | null;
  /** The body's bytes, when it is not UTF-8 (text is null); null without a body. */
  bytes: Uint8Array | null;
  /** The body's input, parsed and validated on the front thread for the route named (http/prevalidation.ts). */
  validated: { route: string; input: unknown } | null;
}

/** Settings of the front thread: plain data, handed over as workerData. */
export interface FrontSettings {
  host: string;
  port: number;
  headersTimeoutMs: number;
  requestTimeoutMs: number;
  keepAliveTimeoutMs: number;
  /** Bytes of a body read at most before it is handed over unread (the main thread answers 413 from Content-Length). */
  bodyLimitBytes: number;
  /** Paths whose bodies may be larger (the snapshot import), and how large. */
  largeBodies: Array<{ path: string; limitBytes: number }>;
  tls: { cert: string; key: string } | null;
}

/** Main thread to front thread. */
export type ToFront =
  /** The whole answer at once; `journal` when the thread builds the request's journal row. */
  | {
      kind: 'answer';
      id: number;
      status: number;
      headers: Record<string, unknown>;
      body: string | Uint8Array | null;
      journal?: JournalNote;
    }
  /** The head of an answer whose body follows in chunks (a stream). */
  | { kind: 'head'; id: number; status: number; headers: Record<string, unknown>; journal?: JournalNote }
  | { kind: 'chunk'; id: number; chunk: string | Uint8Array }
  | { kind: 'end'; id: number; chunk: string | Uint8Array | null }
  /** Close the connection without (more of) an answer: `reset` sends a TCP RST (API faults). */
  | { kind: 'drop'; id: number; reset: boolean }
  /** Stop accepting, let the requests in flight finish; after `graceMs` cut what is left. */
  | { kind: 'close'; graceMs: number };

/** Front thread to main thread. */
export type FromFront =
  | { kind: 'listening'; address: { address: string; family: string; port: number } }
  | { kind: 'listen-error'; code: string | undefined; message: string }
  | { kind: 'requests'; requests: FrontRequest[] }
  /** Journal rows the thread built from answers it wrote (services/journal/journal-row.ts), for the main thread to insert. */
  | { kind: 'journal'; rows: NewJournalRow[] }
  /** The client went away before its answer was all written. */
  | { kind: 'gone'; ids: number[] }
  /** A streamed answer's socket is full, or took what it held (backpressure). */
  | { kind: 'full'; id: number }
  | { kind: 'drained'; id: number }
  | { kind: 'closed' };
