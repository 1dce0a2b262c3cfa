/**
 * The order in which eth_getLogs walks read their pages after the first (read at once: logPages.ts):
 * at most `slots` page reads at once in a process, and of those waiting, the page of the walk whose
 * turn is earliest first. A walk's turn is when it began, moved back by the square of the pages it
 * has read up to 50 pages, 100 ms a page after that (pageTurn).
 *
 * Without it every walk of several pages reads in turn with all the others: sixteen walks of 1,000
 * blocks each take about sixteen times as long as one, and the longest walks the longest of all
 * (the p99). With it, the later pages of walks of a few pages go in the order the walks began: a walk
 * that has begun goes on at about the speed of one alone while newer ones wait, so each answer takes
 * about as long as the work ahead of it rather than as long as all of them. The square lets a long
 * walk (a week of one address, hundreds of pages) cede to newer walks ever more: its turn is 2 ms
 * later after one page, 50 ms after 5, 800 ms after 20, 5 s after 50, so it cannot hold the places
 * while newer walks wait; after 50 pages it moves back 100 ms a page, so that under load that never
 * ends it still reads a page every 100 ms or so (a square alone would slow it to one page every
 * 4*sqrt(elapsed ms / 2) ms: a week of one address, 453 pages, would take 7 minutes instead of 45 s).
 *
 * Only the read is held (the statements and the page's text, logPages.ts), never the write: a client
 * that does not read its answer holds no slot while its socket is full.
 */

/** What the pages a walk has read count in its turn: PAGE_TURN_MS times their square, ms, up to SQUARE_PAGES pages. */
export const PAGE_TURN_MS = 2;

/** The pages after which each page moves a walk's turn back by PAGE_TURN_MS * SQUARE_PAGES (100 ms). */
export const SQUARE_PAGES = 50;

/** The turn of a walk that began at `since` (performance.now()) and has read `pages` pages. */
export const pageTurn = (since: number, pages: number): number => since + PAGE_TURN_MS * pages * Math.min(pages, SQUARE_PAGES);

interface Waiter {
  turn: number;
  order: number;
  enter: () => void;
}

const before = (a: Waiter, b: Waiter): boolean => a.turn < b.turn || (a.turn === b.turn && a.order < b.order);

export class PageGate {
  private active = 0;
  private arrivals = 0;
  /** A binary min-heap of the waiting reads by (turn, arrival). */
  private readonly heap: Waiter[] = [];

  constructor(private readonly slots: number) {}

  /** Page reads under way and waiting. */
  get load(): { active: number; waiting: number } {
    return { active: this.active, waiting: this.heap.length };
  }

  /** Waits for a slot for a page of the walk whose turn is `turn` (pageTurn); the function returned gives it back, once. */
  async enter(turn: number): Promise<() => void> {
    if (this.active < this.slots && this.heap.length === 0) this.active++;
    else await new Promise<void>((enter) => this.push({ turn, order: this.arrivals++, enter }));
    let left = false;
    return () => {
      if (left) return;
      left = true;
      const next = this.pop();
      // the slot goes straight to the next read; with none waiting it is free
      if (next === undefined) this.active--;
      else next.enter();
    };
  }

  private push(waiter: Waiter): void {
    const heap = this.heap;
    let i = heap.push(waiter) - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!before(heap[i]!, heap[parent]!)) break;
      [heap[i], heap[parent]] = [heap[parent]!, heap[i]!];
      i = parent;
    }
  }

  private pop(): Waiter | undefined {
    const heap = this.heap;
    const top = heap[0];
    const last = heap.pop();
    if (heap.length > 0 && last !== undefined) {
      heap[0] = last;
      let i = 0;
      for (;;) {
        const l = 2 * i + 1;
        const r = l + 1;
        let least = i;
        if (l < heap.length && before(heap[l]!, heap[least]!)) least = l;
        if (r < heap.length && before(heap[r]!, heap[least]!)) least = r;
        if (least === i) break;
        [heap[i], heap[least]] = [heap[least]!, heap[i]!];
        i = least;
      }
    }
    return top;
  }
}

const gates = new WeakMap<object, PageGate>();

/** The gate of the walks on `db` in this process (one per database: its pool is what the slots share). */
export function pageGateOf(db: object, slots: number): PageGate {
  let gate = gates.get(db);
  if (gate === undefined) gates.set(db, (gate = new PageGate(slots)));
  return gate;
}
