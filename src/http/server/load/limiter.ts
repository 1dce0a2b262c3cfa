/**
 * The limit of contract requests in flight, learnt from the time statements wait for a database
 * connection (issue 45): shed only when clients would otherwise wait too long, whatever the
 * database's speed.
 *
 * The signal is CoDel's (Nichols and Jacobson; as Facebook's Thrift servers use it for requests): the
 * least wait for a connection in each INTERVAL_MS window. A burst makes some statements wait, but one
 * that came when the queue was short waits little, so the window's least wait stays low; only a queue
 * that stands for the whole window makes every wait in it long. A window in which no statement got
 * a connection while some wait counts with the oldest one's wait so far (the database stopped
 * answering: no statement leaves the queue to report its wait).
 *
 * At the end of each window:
 * - a standing wait above `maxWaitMs`: the part of the limit above `min` (the requests that queue)
 *   is scaled by `maxWaitMs / wait`, at least by half: the queue's length is what makes the wait, so
 *   the queue it allows is cut in that ratio;
 * - within it: the limit grows by GROWTH, up to `max` (AIMD's additive increase);
 * - a request that failed for lack of capacity (a database timeout or outage: `drop`) cuts the limit
 *   by BACKOFF at once (AIMD's multiplicative decrease).
 *
 * A wait is a wait for any database (a slow database, one that is down, a cluster whose statements
 * fan out): the limit never looks at how long answers take, so a database whose answers take 500 ms
 * but do not queue is never shed from (a latency target did that: issue 45), and a closed loop of
 * clients up to `max` is never shed while their waits stay within `maxWaitMs`.
 *
 * The class keeps no timers: the caller passes the time (ms, any monotonic clock) to each call.
 */

export interface LimiterOptions {
  /** The limit never goes below (the database pool's connections: fewer would leave it idle). */
  min: number;
  /** Nor above, and starts there (the pool plus server.pressure.maxQueuedRequests). min = max: a fixed limit. */
  max: number;
  /** ms; the longest standing wait for a database connection before the limit comes down (server.pressure.maxQueueWait). */
  maxWaitMs: number;
  /** ms the longest-waiting statement has waited so far at `now` (0: none waits); none when absent. */
  oldestWaitMs?: (now: number) => number;
}

export const INTERVAL_MS = 100;
const BACKOFF = 0.9;
/** Requests the limit grows by per window within the bound (AIMD's additive increase). */
const GROWTH = 1;

export class QueueWaitLimit {
  #limit: number;
  #inFlight = 0;
  #windowStart = Number.NaN;
  /** The least wait reported in the window; Infinity: none reported. */
  #windowLeast = Infinity;
  #windowDropped = 0;
  #standing = 0;
  readonly #min: number;
  readonly #max: number;
  readonly #maxWait: number;
  readonly #oldestWait: (now: number) => number;

  constructor({ min, max, maxWaitMs, oldestWaitMs = () => 0 }: LimiterOptions) {
    if (!(min >= 1 && max >= min)) throw new Error(`the limiter needs 1 <= min <= max, got ${min}, ${max}`);
    if (!(maxWaitMs > 0)) throw new Error(`the limiter needs a positive maximum wait, got ${maxWaitMs}`);
    this.#min = min;
    this.#max = max;
    this.#limit = max;
    this.#maxWait = maxWaitMs;
    this.#oldestWait = oldestWaitMs;
  }

  /** The requests in flight now may not exceed this. */
  get limit(): number {
    return Math.floor(this.#limit);
  }

  get inFlight(): number {
    return this.#inFlight;
  }

  /** The standing wait (ms) of the last window that had one: its least wait for a connection. */
  get standingWaitMs(): number {
    return this.#standing;
  }

  /** Admits a request (true) while fewer than the limit are in flight; its end must be told to `release`. */
  tryAcquire(now: number): boolean {
    this.#maybeEndWindow(now);
    if (this.#inFlight >= this.limit) return false;
    this.#inFlight++;
    return true;
  }

  /** The end of an admitted request; `dropped` when it failed for lack of capacity. */
  release(dropped = false): void {
    if (this.#inFlight > 0) this.#inFlight--;
    if (dropped) this.#windowDropped++;
  }

  /** A statement got its connection after waiting `waitMs` for it. */
  waited(now: number, waitMs: number): void {
    this.#maybeEndWindow(now);
    if (waitMs < this.#windowLeast) this.#windowLeast = waitMs;
  }

  /** Ends the window when INTERVAL_MS have passed (also while no request comes or leaves). */
  tick(now: number): void {
    this.#maybeEndWindow(now);
  }

  #maybeEndWindow(now: number): void {
    if (Number.isNaN(this.#windowStart)) {
      this.#windowStart = now;
      return;
    }
    if (now - this.#windowStart < INTERVAL_MS) return;
    // the least wait reported, else the oldest wait so far (none waiting: no evidence either way)
    const standing = this.#windowLeast !== Infinity ? this.#windowLeast : this.#oldestWait(now) || undefined;
    if (this.#windowDropped > 0) {
      this.#limit = Math.max(this.#min, this.#limit * BACKOFF);
    } else if (standing !== undefined) {
      this.#standing = standing;
      if (standing > this.#maxWait) {
        const queued = this.#limit - this.#min;
        this.#limit = this.#min + queued * Math.max(0.5, this.#maxWait / standing);
      } else {
        this.#limit = Math.min(this.#max, this.#limit + GROWTH);
      }
    }
    this.#windowStart = now;
    this.#windowLeast = Infinity;
    this.#windowDropped = 0;
  }
}
