// The due deliveries the worker holds in memory, one queue per receiver (origin). Rows are read
// from the outbox in due order after a cursor, so a row waiting in a queue is never read again
// while its receiver is full; a receiver whose queue is full spills: the reader passes its rows
// (so other receivers' rows behind a dead receiver's backlog still come), and the receiver reads
// its own rows back from where it spilled once its queue runs low. The database stays the record:
// this is a cache of due rows, checked row by row by the claim's lease. A new delivery the worker
// takes from the commit (adopt) joins its receiver's queue without being read: it is leased already.
// Fairness across receivers: a receiver with nothing in flight may always start one attempt, so a
// healthy receiver never waits behind others' slow answers (hundreds of receivers that accept and
// never answer took every slot for 5 s at a time); more attempts at once go only to receivers that
// answer in time, within the worker's cap. A receiver whose last attempt timed out, failed on the
// network or took over SLOW_MS counts as slow: one attempt at a time, SLOW_CAP of them in all.
import { present } from '../../errors.js';
import { DUE_START, type DueCursor, type DueRow } from '../../store/delivery-claim.js';
import type { Delivery } from '../../store/deliveries-repo.js';
import { receiverOf } from './in-flight.js';

/** Rows one read takes at most. */
const READ_BATCH = 128;
/** Rows one fill reads past full receivers at most, so a fill behind a huge backlog stays short; the next fill goes on from there. */
const LOOKAHEAD = 1024;
/** Due rows held in memory per receiver; past it the receiver spills. */
const QUEUE_CAP = 512;
/** A spilled receiver reads its rows back once its queue is this short. */
const QUEUE_LOW = 64;
/** Attempts in flight at most, all receivers together: the connections the sender holds open. */
const HARD_CAP = 1024;
/** Attempts in flight at most to receivers counted slow, so they always leave room for the others. */
const SLOW_CAP = 256;
/** An attempt answered later than this marks its receiver slow. */
export const SLOW_MS = 1000;
/** How long a receiver stays slow after its last slow attempt, unless one is answered in time before. */
const SLOW_FOR_MS = 60_000;
/** The error kinds of an attempt that mark its receiver slow: it did not answer at all. */
const NO_ANSWER = new Set(['timeout', 'refused', 'reset', 'network', 'dns', 'tls']);

/** The reads the queues make (the deliveries repository's). */
export interface DueReader {
  dueAfter(cursor: DueCursor, now: number, limit: number, until?: DueCursor): Array<DueRow<Delivery>>;
}

/** One receiver's due deliveries and attempts in flight. */
interface Receiver {
  queue: Delivery[];
  /** Set while rows of this receiver after this place were passed over (its queue was full). */
  spill: DueCursor | undefined;
  inFlight: number;
}

const before = (a: DueCursor, b: DueCursor) => a.at < b.at || (a.at === b.at && a.rowid < b.rowid);

/** Per-receiver queues of due deliveries, filled from the outbox in due order. */
export class DeliveryQueues {
  private cursor: DueCursor = DUE_START;
  private readonly receivers = new Map<string, Receiver>();
  /** Ids queued or in flight: a row read again (after a rewind) is not queued twice. */
  private readonly known = new Set<string>();
  /** The origin of each URL seen, so a URL is parsed once (cleared when it grows large). */
  private readonly origins = new Map<string, string>();
  private lastNow = Number.MIN_SAFE_INTEGER;
  /** Receivers counted slow, until when (real time). */
  private readonly slowUntil = new Map<string, number>();
  /** Attempts in flight, and the slow pool each was started in (by delivery id). */
  private readonly pools = new Map<string, boolean>();
  private slowInFlight = 0;

  constructor(
    private readonly reader: DueReader,
    /** Attempts in flight to one receiver at most. */
    readonly perReceiver: number,
  ) {}

  /**
   * A row fell due at (at, rowid): read again from there if the cursor is past it. When the write
   * knew the row's URL (a retry, a new row), only its receiver reads back from there (readBack, as
   * after a spill), and the cursor stays: moving it back had every later row read again for each such
   * row, and a dead receiver's backlog (each retry due at once, before the cursor: a retry counts from
   * when its attempt was due) spent most of the main thread re-reading the outbox.
   */
  rewind(at: number, rowid: number, url?: string): void {
    const place = { at, rowid: Math.max(0, rowid - 1) };
    if (url !== undefined) {
      if (!before(place, this.cursor)) return;
      const origin = this.receiverOf(url);
      const receiver = this.receivers.get(origin) ?? { queue: [], spill: undefined, inFlight: 0 };
      this.receivers.set(origin, receiver);
      if (receiver.spill === undefined || before(place, receiver.spill)) receiver.spill = place;
      return;
    }
    if (before(place, this.cursor)) this.cursor = place;
    for (const receiver of this.receivers.values()) if (receiver.spill && before(place, receiver.spill)) receiver.spill = place;
  }

  /** Forgets every queued row (not those in flight) and reads the outbox again from its start. */
  reset(): void {
    for (const receiver of this.receivers.values()) {
      for (const delivery of receiver.queue) this.known.delete(delivery.id);
      receiver.queue = [];
      receiver.spill = undefined;
    }
    this.cursor = DUE_START;
  }

  /** The receiver (origin) of a URL, parsed once per URL. */
  receiverOf(url: string): string {
    let origin = this.origins.get(url);
    if (origin === undefined) {
      if (this.origins.size >= 4096) this.origins.clear();
      origin = receiverOf(url);
      this.origins.set(url, origin);
    }
    return origin;
  }

  /** True when a new delivery to `url` may join its receiver's queue at its commit: the queue has room and holds every due row of that receiver. */
  canAdopt(url: string): boolean {
    const receiver = this.receivers.get(this.receiverOf(url));
    return receiver === undefined || (receiver.spill === undefined && receiver.queue.length < QUEUE_CAP);
  }

  /** Queues a delivery handed over at its commit, behind its receiver's queued rows. */
  adopt(delivery: Delivery): void {
    if (this.known.has(delivery.id)) return;
    const origin = this.receiverOf(delivery.url);
    let receiver = this.receivers.get(origin);
    if (!receiver) {
      receiver = { queue: [], spill: undefined, inFlight: 0 };
      this.receivers.set(origin, receiver);
    }
    receiver.queue.push(delivery);
    this.known.add(delivery.id);
  }

  /**
   * Reads due rows until `room` attempts could start, the due rows run out, or LOOKAHEAD rows were
   * passed over (`more`: fill again on the next turn); `exhausted` when every due row was read.
   * Without `readNew` only spilled receivers read their own rows back: nothing new fell due.
   */
  fill(now: number, room: number, readNew = true): { more: boolean; exhausted: boolean } {
    // Sandbox time went back (a reset reloaded the clock): rows may now sit before the cursor.
    if (now < this.lastNow) this.rewind(DUE_START.at, 0);
    this.lastNow = now;
    let ready = 0;
    for (const receiver of this.receivers.values()) {
      if (receiver.spill && receiver.queue.length < QUEUE_LOW && receiver.inFlight < this.perReceiver)
        this.readBack(receiver, receiver.spill, now);
      ready += Math.min(receiver.queue.length, Math.max(0, this.perReceiver - receiver.inFlight));
    }
    if (!readNew) return { more: false, exhausted: false };
    let passed = 0;
    while (ready < room && passed < LOOKAHEAD) {
      const rows = this.reader.dueAfter(this.cursor, now, READ_BATCH);
      for (const row of rows) {
        this.cursor = row.cursor;
        const added = this.add(row);
        if (added === undefined) passed++;
        else if (added.queue.length + added.inFlight <= this.perReceiver) ready++;
      }
      if (rows.length < READ_BATCH) return { more: false, exhausted: true };
    }
    return { more: passed >= LOOKAHEAD, exhausted: false };
  }

  /**
   * Takes the deliveries to send now, oldest first per receiver, and counts them in flight: first
   * one for every receiver with nothing in flight (HARD_CAP in all, SLOW_CAP to slow ones), then
   * more for receivers that answer in time, round-robin, up to perReceiver each, while fewer than
   * `room` attempts to such receivers are in flight.
   */
  take(room: number): Delivery[] {
    const taken: Delivery[] = [];
    const now = Date.now();
    for (const [origin, receiver] of this.receivers) {
      if (receiver.inFlight > 0 || receiver.queue.length === 0) continue;
      if (this.pools.size >= HARD_CAP) return taken;
      const slow = this.isSlow(origin, now);
      if (!slow || this.slowInFlight < SLOW_CAP) taken.push(this.start(receiver, slow));
    }
    for (let more = true; more; ) {
      more = false;
      for (const [origin, receiver] of this.receivers) {
        if (this.pools.size - this.slowInFlight >= room || this.pools.size >= HARD_CAP) return taken;
        if (receiver.queue.length === 0 || receiver.inFlight >= this.perReceiver || this.isSlow(origin, now)) continue;
        taken.push(this.start(receiver, false));
        more = true;
      }
    }
    return taken;
  }

  /** An attempt to `url` was answered (or not) after `latencyMs`: its receiver counts slow, or no longer. */
  answered(url: string, errorKind: string | null, latencyMs: number): void {
    const origin = this.receiverOf(url);
    if ((errorKind !== null && NO_ANSWER.has(errorKind)) || latencyMs >= SLOW_MS) {
      if (this.slowUntil.size >= 4096) for (const [o, until] of this.slowUntil) if (until <= Date.now()) this.slowUntil.delete(o);
      this.slowUntil.set(origin, Date.now() + SLOW_FOR_MS);
    } else this.slowUntil.delete(origin);
  }

  /** An attempt taken by take() ended (sent and recorded, refused by the claim, or dropped). */
  done(delivery: Delivery): void {
    this.known.delete(delivery.id);
    this.ended(delivery);
    const origin = this.receiverOf(delivery.url);
    const receiver = this.receivers.get(origin);
    if (!receiver) return;
    receiver.inFlight--;
    if (receiver.inFlight === 0 && receiver.queue.length === 0 && !receiver.spill) this.receivers.delete(origin);
  }

  /** Puts a taken delivery back at the head of its queue (its attempt was lost unsent: a sender thread died). */
  putBack(delivery: Delivery): void {
    this.ended(delivery);
    const receiver = this.receivers.get(this.receiverOf(delivery.url));
    if (!receiver) return;
    receiver.inFlight--;
    receiver.queue.unshift(delivery);
  }

  /** Attempts in flight, all receivers together. */
  get inFlight(): number {
    return this.pools.size;
  }

  /** Attempts in flight to each receiver. */
  inFlightTo(origin: string): number {
    return this.receivers.get(origin)?.inFlight ?? 0;
  }

  /** Deliveries queued in memory, not yet taken. */
  get queued(): number {
    let queued = 0;
    for (const receiver of this.receivers.values()) queued += receiver.queue.length;
    return queued;
  }

  private isSlow(origin: string, now: number): boolean {
    const until = this.slowUntil.get(origin);
    return until !== undefined && until > now;
  }

  /** Takes the head of a receiver's queue and counts it in flight. */
  private start(receiver: Receiver, slow: boolean): Delivery {
    const delivery = present(receiver.queue.shift(), 'the head of a queue the caller saw non-empty');
    receiver.inFlight++;
    this.pools.set(delivery.id, slow);
    if (slow) this.slowInFlight++;
    return delivery;
  }

  /** Uncounts a taken delivery's attempt. */
  private ended(delivery: Delivery): void {
    const slow = this.pools.get(delivery.id);
    if (slow === undefined) return;
    this.pools.delete(delivery.id);
    if (slow) this.slowInFlight--;
  }

  /** Queues a row read from the outbox; returns its receiver, or undefined when it was passed over (known, or its receiver full). */
  private add(row: DueRow<Delivery>): Receiver | undefined {
    const { delivery } = row;
    if (this.known.has(delivery.id)) return undefined;
    const origin = this.receiverOf(delivery.url);
    let receiver = this.receivers.get(origin);
    if (!receiver) {
      receiver = { queue: [], spill: undefined, inFlight: 0 };
      this.receivers.set(origin, receiver);
    }
    if (receiver.spill || receiver.queue.length >= QUEUE_CAP) {
      // Passed over: read back from here once the queue runs low.
      receiver.spill ??= { at: row.cursor.at, rowid: row.cursor.rowid - 1 };
      return undefined;
    }
    receiver.queue.push(delivery);
    this.known.add(delivery.id);
    return receiver;
  }

  /** Reads a spilled receiver's own rows back, from where it spilled up to the cursor. */
  private readBack(receiver: Receiver, spill: DueCursor, now: number): void {
    let from = spill;
    while (receiver.queue.length < QUEUE_CAP) {
      const rows = this.reader.dueAfter(from, now, READ_BATCH, this.cursor);
      for (const row of rows) {
        from = row.cursor;
        const { delivery } = row;
        if (this.known.has(delivery.id) || this.receivers.get(this.receiverOf(delivery.url)) !== receiver) continue;
        receiver.queue.push(delivery);
        this.known.add(delivery.id);
        if (receiver.queue.length >= QUEUE_CAP) break;
      }
      if (rows.length < READ_BATCH && receiver.queue.length < QUEUE_CAP) {
        receiver.spill = undefined;
        return;
      }
    }
    receiver.spill = from;
  }
}
