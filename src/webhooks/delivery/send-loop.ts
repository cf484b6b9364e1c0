// The HTTP side of delivery, the same code on the sender thread (sender-thread.ts) and on the main
// thread where no thread is used (senders.ts): it builds and signs each attempt no fault shaped
// (a shaped one comes built), POSTs it (a fault's duplicate copies right after it), and hands the
// results back in batches, so the main thread records many in one write: a batch goes back once
// every job sent is answered, or at the latest FLUSH_MS after its first result.
import type { Config } from '../../config.js';
import type { WebhookSigning } from '../../signatures/signing.js';
import { controlTargetRefusal } from '../../runtime/machine-names.js';
import { buildWebhookRequest, type AttemptTrace } from '../webhook-request.js';
import { HttpSender, type PostRequest, type PostResult, type TargetCheck } from './http-sender.js';

/** How long a result may wait for others before its batch goes back. */
const FLUSH_MS = 1;

/** What the sending side signs an attempt with (buildWebhookRequest's arguments but the body and URL, flat). */
export interface SignSpec extends WebhookSigning {
  deliveryId: string;
  eventId: string;
  eventType: string;
  contentType: string;
  attempt: number;
  /** Unix seconds of the sandbox clock at the attempt. */
  timestamp: number;
  /** The attempt's traceparent (its span id chosen on the main thread, where its span is) and tracestate; null without a trace. */
  trace: AttemptTrace | null;
}

/**
 * One attempt to send: its URL and body, then either the headers a fault shaped (signed on the main
 * thread) or what the sending side signs it with; and how many extra copies a duplicate fault asks for.
 */
export interface SendJob {
  key: number;
  url: string;
  body: string;
  headers: Record<string, string> | null;
  sign: SignSpec | null;
  copies: number;
}

/** What came back for one job: the attempt's answer, then each copy's, and the headers sent when the sending side signed them. */
export interface SendResult {
  key: number;
  result: PostResult;
  copies: PostResult[];
  headers: Record<string, string> | null;
}

/** What the sending side is built from: plain data, so it can be handed to a thread. */
export interface SendSettings {
  timeoutMs: number;
  /** The word of --header-prefix (X-<Prefix>-...), for the attempts signed here. */
  headerPrefix: string;
  /** Extra CA certificates (PEM) for https receivers. */
  extraCa?: string[];
  /** Where the sandbox answers: nothing is ever sent to its own control API (docs/security.md). */
  where: Pick<Config, 'host' | 'publicUrl'>;
}

/** Runs send jobs and batches their results. */
export class SendLoop {
  private readonly http: HttpSender;
  private readonly check: TargetCheck;
  private done: SendResult[] = [];
  private running = 0;
  private flushTimer: NodeJS.Timeout | undefined;

  constructor(
    private readonly settings: SendSettings,
    private readonly deliver: (results: SendResult[]) => void,
  ) {
    this.http = new HttpSender({ extraCa: settings.extraCa });
    this.check = (url) => controlTargetRefusal(url, settings.where);
  }

  /** Starts every job; their results come back through `deliver`. */
  run(jobs: readonly SendJob[]): void {
    for (const job of jobs) void this.one(job);
  }

  /** Closes the kept-open connections. */
  close(): void {
    this.http.close();
  }

  private async one(job: SendJob): Promise<void> {
    this.running++;
    const request = this.requestOf(job);
    const result = await this.http.post(request, this.settings.timeoutMs, this.check);
    const copies: PostResult[] = [];
    for (let copy = 0; copy < job.copies; copy++) copies.push(await this.http.post(request, this.settings.timeoutMs, this.check));
    this.running--;
    this.done.push({ key: job.key, result, copies, headers: job.sign ? request.headers : null });
    if (this.running === 0) this.flush();
    else this.flushTimer ??= setTimeout(() => this.flush(), FLUSH_MS);
  }

  /** The job's request: as shaped, or built and signed here as the worker would have. */
  private requestOf(job: SendJob): PostRequest {
    const { sign } = job;
    if (!sign) return { url: job.url, headers: job.headers ?? {}, body: job.body };
    const delivery = {
      id: sign.deliveryId,
      eventId: sign.eventId,
      eventType: sign.eventType,
      url: job.url,
      body: job.body,
      contentType: sign.contentType,
    };
    const signing = { mode: sign.mode, secrets: sign.secrets };
    return buildWebhookRequest(delivery, sign.attempt, this.settings, signing, sign.timestamp, sign.trace);
  }

  private flush(): void {
    clearTimeout(this.flushTimer);
    this.flushTimer = undefined;
    if (this.done.length > 0) this.deliver(this.done.splice(0));
  }
}
