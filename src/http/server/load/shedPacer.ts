/**
 * The pace of shed answers. A client that retries a 503 at once, ignoring Retry-After, comes back
 * as soon as its 503 arrives: answered at once, such clients turn every spare cycle of the machine
 * (the event loop's, the load balancer's, their own) into 503s, and the admitted requests wait
 * for the event loop behind them (issue 31: 98.7 % shed and a tenth of the goodput at 1,024
 * connections). So shed answers are sent at once only up to a budget per tick: half as many as
 * the requests admitted and answered in the tick before, at least MIN_PER_TICK. Beyond it they
 * wait, in order, for a later tick's budget, at most `maxHoldMs` (the Retry-After the answer
 * names). A held answer costs no CPU: the request waits on its socket like one in a queue, but
 * holds no slot of the work in flight, and its connection reads nothing more meanwhile.
 *
 * With clients that honour Retry-After the budget is never used up and every 503 is sent at once.
 */
import type { ServerResponse } from 'node:http';

export const TICK_MS = 100;
/** Shed answers sent at once per tick, at least (100 a second). */
const MIN_PER_TICK = 10;
/** Shed answers sent at once per admitted request answered in the tick before. */
const PER_ADMITTED = 0.5;

/** Writes the shed answer to a response; `close`: with Connection: close (the drain's). */
export type SendShed = (response: ServerResponse, close: boolean) => void;

export class ShedPacer {
  #held: Array<{ response: ServerResponse; at: number }> = [];
  #first = 0;
  #budget = MIN_PER_TICK;

  constructor(
    private readonly send: SendShed,
    private readonly maxHoldMs: number,
  ) {}

  /** Answers now, or holds the answer for a later tick. */
  shed(response: ServerResponse, now: number): void {
    if (this.maxHoldMs <= 0 || (this.#budget >= 1 && this.held === 0)) {
      this.#budget--;
      this.send(response, false);
    } else {
      this.#held.push({ response, at: now });
    }
  }

  /** Answers held now. */
  get held(): number {
    return this.#held.length - this.#first;
  }

  /** A new tick: its budget from the admitted answers of the last; sends what it allows, and what waited maxHoldMs. */
  tick(now: number, admittedInLastTick: number): void {
    this.#budget = Math.max(MIN_PER_TICK, Math.floor(admittedInLastTick * PER_ADMITTED));
    while (this.#first < this.#held.length) {
      const { response, at } = this.#held[this.#first]!;
      if (this.#budget < 1 && now - at < this.maxHoldMs) break;
      this.#held[this.#first++] = undefined as never;
      if (response.destroyed || response.writableEnded) continue; // the client went away meanwhile
      this.#budget--;
      this.send(response, false);
    }
    this.#compact();
  }

  /** Sends every held answer now (the shutdown drain: with Connection: close). */
  flush(close: boolean): void {
    const held = this.#held.slice(this.#first);
    this.#held = [];
    this.#first = 0;
    for (const { response } of held) if (!response.destroyed && !response.writableEnded) this.send(response, close);
  }

  #compact(): void {
    if (this.#first === this.#held.length) {
      this.#held = [];
      this.#first = 0;
    } else if (this.#first > 1024 && this.#first * 2 > this.#held.length) {
      this.#held = this.#held.slice(this.#first);
      this.#first = 0;
    }
  }
}
