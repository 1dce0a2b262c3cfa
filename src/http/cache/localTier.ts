/**
 * The in-process tier: the most recently used answers of this process, bounded in bytes
 * (cache.response.localMaxBytes), each until its own expiry. It answers without a round trip to
 * Redis, and keeps answering while Redis is away.
 */
import { LRUCache } from 'lru-cache';
import type { ContentEncoding } from '../compression.ts';
import { type Answer, answerBytes } from '../answer.ts';

export interface Held {
  answer: Answer;
  /** ms since the epoch. */
  expiresAt: number;
  /**
   * The route template the answer was computed by (as metrics label it), when the request's path
   * alone leads there: what lets a hit be served before routing (src/http/heldAnswers.ts).
   */
  route?: string;
  /** The body compressed, by content-encoding: made on the first request that asks for each. */
  compressed?: Partial<Record<ContentEncoding, Buffer>>;
}

/** What an entry costs: its answer, its compressed copies and its key. */
function heldBytes(held: Held, key: string): number {
  let bytes = answerBytes(held.answer) + key.length;
  if (held.compressed) for (const body of Object.values(held.compressed)) bytes += body.length;
  return bytes;
}

/**
 * The bytes in memory of their own. A body under 4 KiB made by Buffer.from(string) is a slice of
 * Node's shared 8 KiB allocation pool (and a decompressed one may be a slice of a larger chunk):
 * keeping the slice keeps the whole pool block, so a tier full of small answers held several times
 * its counted bytes.
 */
export function ownBytes(body: Buffer): Buffer {
  if (body.byteOffset === 0 && body.buffer.byteLength === body.length) return body;
  const own = Buffer.allocUnsafeSlow(body.length);
  body.copy(own);
  return own;
}

export class LocalTier {
  private readonly entries: LRUCache<string, Held>;

  constructor(maxBytes: number) {
    this.entries = new LRUCache<string, Held>({
      maxSize: maxBytes,
      // the key (a request identity, key.ts) is held too: a long query string costs its length
      sizeCalculation: heldBytes,
      // every entry gets its own ttl; this default only turns expiry tracking on
      ttl: 1000,
      allowStale: false,
      updateAgeOnGet: false,
    });
  }

  get(key: string, now = Date.now()): Held | undefined {
    const held = this.entries.get(key);
    return held !== undefined && held.expiresAt > now ? held : undefined;
  }

  /** Keeps `answer` for `ms` (an answer larger than the whole tier is not kept). */
  set(key: string, answer: Answer, ms: number, route?: string, now = Date.now()): void {
    if (ms <= 0) return;
    const held: Held = { answer: { ...answer, body: ownBytes(answer.body) }, expiresAt: now + ms };
    if (route !== undefined) held.route = route;
    this.entries.set(key, held, { ttl: ms });
  }

  /**
   * Adds a compressed copy of the body to the entry `held` under `key`, for the time it has left,
   * counted in the tier's bytes. Returns the copy.
   */
  addCompressed(key: string, held: Held, encoding: ContentEncoding, body: Buffer, now = Date.now()): Buffer {
    const ms = held.expiresAt - now;
    if (ms <= 0 || this.entries.peek(key) !== held) return body;
    const own = ownBytes(body);
    // a new object: the cache counts an entry's size when it is set with a different value
    this.entries.set(key, { ...held, compressed: { ...held.compressed, [encoding]: own } }, { ttl: ms });
    return own;
  }

  get bytes(): number {
    return this.entries.calculatedSize;
  }

  get size(): number {
    return this.entries.size;
  }
}
