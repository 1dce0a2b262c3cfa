/**
 * Where filters live: in the response cache's Redis when that is configured (cache.response.enabled
 * and redis.enabled), so that a filter made through one process is read through any other; in
 * process otherwise (at most rpc.maxFilters, the oldest dropped first). Each filter lives rpc.filterTtl
 * after it was made or last read (the relay's FILTER_TTL, 5 minutes).
 */
import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { LRUCache } from 'lru-cache';
import type { Config } from '../config/config.ts';
import { redisOptions } from '../http/cache/redisTier.ts';

/** A filter as the relay keeps one: its type, its parameters, the block it was last asked up to. */
export interface StoredFilter {
  type: 'log' | 'newBlock';
  params: {
    fromBlock?: string | number;
    toBlock?: string;
    address?: string | string[];
    topics?: Array<string | null | Array<string | null>>;
    blockAtCreation?: string;
  };
  lastQueried: number | null;
}

export interface FilterStore {
  get(id: string): Promise<StoredFilter | undefined>;
  /** Stores (or refreshes) the filter for another rpc.filterTtl. */
  set(id: string, filter: StoredFilter): Promise<void>;
  delete(id: string): Promise<boolean>;
  close(): Promise<void>;
}

/** A new filter id: 16 random bytes as 0x-hex (the relay's generateRandomHex). */
export const newFilterId = (): string => `0x${randomBytes(16).toString('hex')}`;

class LocalFilters implements FilterStore {
  private readonly filters: LRUCache<string, StoredFilter>;

  constructor(max: number, ttl: number) {
    this.filters = new LRUCache({ max, ttl, ttlAutopurge: false });
  }

  async get(id: string) {
    return this.filters.get(id);
  }

  async set(id: string, filter: StoredFilter) {
    this.filters.set(id, filter);
  }

  async delete(id: string) {
    return this.filters.delete(id);
  }

  async close() {
    this.filters.clear();
  }
}

class RedisFilters implements FilterStore {
  private readonly client: Redis;

  constructor(
    config: Config,
    private readonly prefix: string,
    private readonly ttl: number,
  ) {
    // commands wait for the connection (a filter must not be lost to a reconnect), bounded by redis.commandTimeout
    this.client = new Redis(config.redis.uri, { ...redisOptions(config), enableOfflineQueue: true, lazyConnect: true });
    this.client.on('error', () => {});
  }

  private key(id: string) {
    return `${this.prefix}${id}`;
  }

  async get(id: string) {
    const text = await this.client.get(this.key(id));
    return text === null ? undefined : (JSON.parse(text) as StoredFilter);
  }

  async set(id: string, filter: StoredFilter) {
    await this.client.set(this.key(id), JSON.stringify(filter), 'PX', this.ttl);
  }

  async delete(id: string) {
    return (await this.client.del(this.key(id))) > 0;
  }

  async close() {
    this.client.disconnect();
  }
}

export function filterStore(config: Config): FilterStore {
  if (config.cache.enabled) return new RedisFilters(config, `${config.cache.keyPrefix}rpc:filter:`, config.rpc.filterTtlMs);
  return new LocalFilters(config.rpc.maxFilters, config.rpc.filterTtlMs);
}
