/**
 * The in-process tier: the most recently used answers of this process, bounded in bytes
 * (cache.response.localMaxBytes), each until its own expiry. It answers without a round trip to
 * Redis, and keeps answering while Redis is away.
 */
import { LRUCache } from 'lru-cache';
import type { ContentEncoding } from '../compression.ts';
import { type Answer, answerBytes } from '../answer/answer.ts';

export interface LocalEntry {
  answer: Answer;
  /** ms since the epoch. */
  expiresAt: number;
  /**
   * The route template the answer was computed by (as metrics label it), when the request's path
   * alone leads there: what lets a hit be served before routing (src/http/server/cacheHits.ts).
   */
  route?: string;
  /** The body compressed, by content-encoding: made on the first request that asks for each. */
  compressed?: Partial<Record<ContentEncoding, Buffer>>;
}

/** What an entry costs: its answer, its compressed copies and its key. */
function entryBytes(entry: LocalEntry, key: string): number {
  let bytes = answerBytes(entry.answer) + key.length;
  if (entry.compressed) for (const body of Object.values(entry.compressed)) bytes += body.length;
  return bytes;
}

/**
 * The bytes in memory of their own. A body under 4 KiB made by Buffer.from(string) is a slice of
 * Node's shared 8 KiB allocation pool (and a decompressed one may be a slice of a larger chunk):
 * keeping the slice keeps the whole pool block, so a tier full of small answers entry several times
 * its counted bytes.
 */
export function ownBytes(body: Buffer): Buffer {
  if (body.byteOffset === 0 && body.buffer.byteLength === body.length) return body;
  const own = Buffer.allocUnsafeSlow(body.length);
  body.copy(own);
  return own;
}

export class LocalTier {
  private readonly entries: LRUCache<string, LocalEntry>;

  constructor(maxBytes: number) {
    this.entries = new LRUCache<string, LocalEntry>({
      maxSize: maxBytes,
      // the key (a request identity, key.ts) is entry too: a long query string costs its length
      sizeCalculation: entryBytes,
      // every entry gets its own ttl; this default only turns expiry tracking on
      ttl: 1000,
      allowStale: false,
      updateAgeOnGet: false,
    });
  }

  get(key: string, now = Date.now()): LocalEntry | undefined {
    const entry = this.entries.get(key);
    return entry !== undefined && entry.expiresAt > now ? entry : undefined;
  }

  /** Keeps `answer` for `ms` (an answer larger than the whole tier is not kept). */
  set(key: string, answer: Answer, ms: number, route?: string, now = Date.now()): void {
    if (ms <= 0) return;
    const entry: LocalEntry = { answer: { ...answer, body: ownBytes(answer.body) }, expiresAt: now + ms };
    if (route !== undefined) entry.route = route;
    this.entries.set(key, entry, { ttl: ms });
  }

  /**
   * Adds a compressed copy of the body to the entry `entry` under `key`, for the time it has left,
   * counted in the tier's bytes. Returns the copy.
   */
  addCompressed(key: string, entry: LocalEntry, encoding: ContentEncoding, body: Buffer, now = Date.now()): Buffer {
    const ms = entry.expiresAt - now;
    if (ms <= 0 || this.entries.peek(key) !== entry) return body;
    const own = ownBytes(body);
    // a new object: the cache counts an entry's size when it is set with a different value
    this.entries.set(key, { ...entry, compressed: { ...entry.compressed, [encoding]: own } }, { ttl: ms });
    return own;
  }

  get bytes(): number {
    return this.entries.calculatedSize;
  }

  get size(): number {
    return this.entries.size;
  }
}
