/**
 * An adaptive limit on the requests in flight, in the manner of Netflix's concurrency-limits
 * (Gradient2Limit): the limit follows what the database answers within the latency target (without
 * one, within its usual latency) instead of a fixed queue length, so that a big machine admits more
 * and a small one less, without tuning.
 *
 * The latencies of the admitted requests are gathered in windows (at least WINDOW_MS and
 * MIN_SAMPLES samples). At the end of each window:
 *
 * - `short` is the window's mean latency, `long` an exponential average of the windows' means
 *   over about LONG_WINDOW windows (the latency the service usually has; it follows a lasting
 *   change, and falls fast when the latency falls to half of it);
 * - with a latency target (the default, `server.pressure.latencyTarget`): the gradient is 1 while the
 *   window's mean is within the target, and `target / short` (at least 0.5) above it. Queueing
 *   within the target is allowed: the limit admits as much as the database answers within the
 *   target, whatever the latency without load was (a pool of 10 connections under 64 clients queues,
 *   and a gradient on the usual latency would shed a third of requests answered in 20 ms);
 * - without one (target 0), as Gradient2: the gradient `tolerance * long / short`, kept within
 *   [0.5, 1], says whether requests queue: 1 while the latency stays within `tolerance` times the
 *   usual, less when it grows;
 * - the new limit is `limit * (gradient + QUEUE)` (room to grow: a queue of a tenth of the limit,
 *   where Gradient2 allows a fixed 4), smoothed (SMOOTHING), within [min, max]. The limit does not grow while fewer than half of it
 *   were in flight during the window (the load, not the service, set the pace: no evidence);
 * - a window in which a request failed for lack of capacity (a database timeout or outage: `drop`)
 *   cuts the limit by BACKOFF at once (AIMD's multiplicative decrease).
 *
 * The class keeps no timers: the caller passes the time (ms, any monotonic clock) to each call.
 */

export interface LimiterOptions {
  /** The limit at start. */
  initial: number;
  /** The limit never goes below (the database pool's connections: fewer would leave it idle). */
  min: number;
  /** Nor above (the fixed bound: the pool plus server.pressure.maxQueuedRequests). A limit with min = max stays fixed. */
  max: number;
  /** ms; a window whose mean latency is above it lowers the limit, one within it may raise it; 0: none (the gradient on the usual latency instead). */
  targetMs: number;
  /** How much above the usual latency counts as no queueing (default 1.5, as Gradient2). */
  tolerance?: number;
}

const WINDOW_MS = 100;
const MIN_SAMPLES = 10;
const LONG_WINDOW = 3000;
const SMOOTHING = 0.2;
const BACKOFF = 0.9;
/** Room to grow: a queue of a tenth of the limit (so the limit grows by 2 % a window while nothing queues). */
const QUEUE = 0.1;

export class AdaptiveLimit {
  #limit: number;
  #inFlight = 0;
  #windowStart = Number.NaN;
  #windowSum = 0;
  #windowCount = 0;
  #windowPeak = 0;
  #windowDropped = 0;
  #long: number | undefined;
  #longCount = 0;
  readonly #min: number;
  readonly #max: number;
  readonly #target: number;
  readonly #tolerance: number;

  constructor({ initial, min, max, targetMs, tolerance = 1.5 }: LimiterOptions) {
    if (!(min >= 1 && max >= min)) throw new Error(`the limiter needs 1 <= min <= max, got ${min}, ${max}`);
    this.#min = min;
    this.#max = max;
    this.#limit = Math.min(max, Math.max(min, initial));
    this.#target = targetMs;
    this.#tolerance = tolerance;
  }

  /** The requests in flight now may not exceed this. */
  get limit(): number {
    return Math.floor(this.#limit);
  }

  get inFlight(): number {
    return this.#inFlight;
  }

  /** The usual latency (ms) the limit is measured against; undefined before the first window. */
  get usualLatencyMs(): number | undefined {
    return this.#long;
  }

  /** Admits a request (true) while fewer than the limit are in flight; its end must be told to `release`. */
  tryAcquire(now: number): boolean {
    if (this.#inFlight >= this.limit) return false;
    this.#inFlight++;
    if (Number.isNaN(this.#windowStart)) this.#windowStart = now;
    if (this.#inFlight > this.#windowPeak) this.#windowPeak = this.#inFlight;
    return true;
  }

  /**
   * The end of an admitted request: `latencyMs` its time from admission to answer, undefined when
   * it says nothing about capacity (a stream, a client that went away); `dropped` when it failed
   * for lack of capacity.
   */
  release(now: number, latencyMs: number | undefined, dropped = false): void {
    if (this.#inFlight > 0) this.#inFlight--;
    if (dropped) this.#windowDropped++;
    else if (latencyMs !== undefined) {
      this.#windowSum += latencyMs;
      this.#windowCount++;
    }
    if (now - this.#windowStart >= WINDOW_MS && (this.#windowCount >= MIN_SAMPLES || this.#windowDropped > 0)) this.#endWindow(now);
  }

  /** How much of the limit the window's mean latency `short` supports, within [0.5, 1]. */
  #gradient(short: number): number {
    if (this.#target > 0) return short > this.#target ? Math.max(0.5, this.#target / short) : 1;
    return Math.min(1, Math.max(0.5, (this.#tolerance * this.#long!) / short));
  }

  #endWindow(now: number): void {
    const limit = this.#limit;
    if (this.#windowDropped > 0) {
      this.#limit = Math.max(this.#min, limit * BACKOFF);
    } else {
      const short = Math.max(this.#windowSum / this.#windowCount, 0.001);
      if (this.#long === undefined) this.#long = short;
      else if (this.#longCount < 10) this.#long += (short - this.#long) / (this.#longCount + 1);
      else this.#long += ((short - this.#long) * 2) / (LONG_WINDOW + 1);
      this.#longCount++;
      // the latency fell far below the usual: let the usual follow it quickly
      if (this.#long / short > 2) this.#long *= 0.95;
      const appLimited = this.#windowPeak < limit / 2;
      const gradient = this.#gradient(short);
      if (!(appLimited && gradient >= 1)) {
        const next = limit * (gradient + QUEUE);
        this.#limit = Math.min(this.#max, Math.max(this.#min, limit * (1 - SMOOTHING) + next * SMOOTHING));
      }
    }
    this.#windowStart = now;
    this.#windowSum = 0;
    this.#windowCount = 0;
    this.#windowDropped = 0;
    this.#windowPeak = this.#inFlight;
  }
}
