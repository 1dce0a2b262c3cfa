/**
 * Counts by key (a client address, most often) that forget a key when its count is back to zero,
 * so that a client that came and went leaves nothing behind. The caps per client keep one each:
 * connections (connectionCap.ts), a forwarded client's requests (clientCap.ts), streams
 * (streams/limits.ts), WebSockets (rpc/ws.ts), JSON-RPC filters (rpc/filterStore.ts).
 */
export class Counts<K = string> {
  private readonly counts = new Map<K, number>();

  /** The count of `key`: 0 for a key never counted or counted down to 0. */
  of(key: K): number {
    return this.counts.get(key) ?? 0;
  }

  /** Counts one more for `key`. */
  add(key: K): void {
    this.counts.set(key, this.of(key) + 1);
  }

  /** Counts one less for `key`; at 0 the key is forgotten (never below 0). */
  remove(key: K): void {
    const left = this.of(key) - 1;
    if (left <= 0) this.counts.delete(key);
    else this.counts.set(key, left);
  }

  /** Forgets every key. */
  clear(): void {
    this.counts.clear();
  }

  /** Keys counted now (each with a count above 0). */
  get size(): number {
    return this.counts.size;
  }
}
