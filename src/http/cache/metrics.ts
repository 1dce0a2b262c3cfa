/**
 * The response cache's Prometheus metrics, in a registry of their own that the scrape routes
 * (src/http/server/plugins/metrics.ts) merge in. The hit ratio is
 * (hits{local} + hits{redis} + coalesced) / (that + computed).
 */
import { Counter, Gauge, Registry } from 'prom-client';
import type { LocalTier } from './localTier.ts';
import type { RedisTier } from './redisTier.ts';

export type Tier = 'local' | 'redis';
export type Kept = 'max-age' | 'immutable' | 'no';

export interface CacheMetrics {
  registry: Registry;
  hit(tier: Tier): void;
  miss(tier: Tier): void;
  /** The request waited for the same request already being answered in this process. */
  coalesced(): void;
  /** The answer was computed by its route: kept for its max-age, kept as immutable, or not kept (an error, no-store). */
  computed(kept: Kept): void;
  redisError(): void;
}

export function cacheMetrics(local: LocalTier | undefined, redis: RedisTier): CacheMetrics {
  const registry = new Registry();
  const hits = new Counter({ name: 'response_cache_hits_total', help: 'Answers served from a cache tier', labelNames: ['tier'], registers: [registry] });
  const misses = new Counter({ name: 'response_cache_misses_total', help: 'Lookups a cache tier could not answer', labelNames: ['tier'], registers: [registry] });
  const coalesced = new Counter({
    name: 'response_cache_coalesced_total',
    help: 'Requests answered by an identical request in flight in the same process',
    registers: [registry],
  });
  const computed = new Counter({
    name: 'response_cache_computed_total',
    help: 'Answers computed by their route (the database), by how they were kept: max-age, immutable, no',
    labelNames: ['kept'],
    registers: [registry],
  });
  const errors = new Counter({ name: 'response_cache_redis_errors_total', help: 'Redis commands that failed or timed out', registers: [registry] });
  new Gauge({
    name: 'response_cache_redis_up',
    help: '1 while Redis is connected and ready',
    registers: [registry],
    collect() {
      this.set(redis.isUp ? 1 : 0);
    },
  });
  new Gauge({
    name: 'response_cache_local_bytes',
    help: 'Bytes of answers held by the in-process tier',
    registers: [registry],
    collect() {
      this.set(local?.bytes ?? 0);
    },
  });
  return {
    registry,
    hit: (tier) => hits.inc({ tier }),
    miss: (tier) => misses.inc({ tier }),
    coalesced: () => coalesced.inc(),
    computed: (kept) => computed.inc({ kept }),
    redisError: () => errors.inc(),
  };
}
