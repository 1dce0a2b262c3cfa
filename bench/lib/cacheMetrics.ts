/**
 * The response cache's counters as the server's /metrics reports them, and the hit ratio of a
 * measured window (the difference of two scrapes). With --workers each scrape is answered by one
 * worker process: the figures are that worker's, a sample of the whole.
 */
export interface CacheCounters {
  localHits: number;
  localMisses: number;
  redisHits: number;
  redisMisses: number;
  coalesced: number;
  /** Answers computed by their route, by how they were kept (max-age, immutable, no). */
  computed: Record<string, number>;
  redisErrors: number;
}

export interface CacheReport extends CacheCounters {
  /** Answers that did not reach the database: (local + Redis hits + coalesced) / all. */
  hitRatio: number;
  localHitRatio: number;
  /** Of the lookups that reached Redis, the share it answered. */
  redisHitRatio: number;
}

const value = (text: string, name: string, labels = ''): number => {
  const line = text.split('\n').find((l) => l.startsWith(`${name}${labels} `) || (labels === '' && l.startsWith(`${name} `)));
  return line ? Number(line.slice(line.lastIndexOf(' ') + 1)) : 0;
};

/** The counters in a /metrics text; undefined when the server has no response cache. */
export function parseCacheCounters(text: string): CacheCounters | undefined {
  if (!text.includes('response_cache_')) return undefined;
  const computed: Record<string, number> = {};
  for (const match of text.matchAll(/^response_cache_computed_total\{kept="([^"]+)"\} (\S+)$/gm)) computed[match[1]!] = Number(match[2]);
  return {
    localHits: value(text, 'response_cache_hits_total', '{tier="local"}'),
    localMisses: value(text, 'response_cache_misses_total', '{tier="local"}'),
    redisHits: value(text, 'response_cache_hits_total', '{tier="redis"}'),
    redisMisses: value(text, 'response_cache_misses_total', '{tier="redis"}'),
    coalesced: value(text, 'response_cache_coalesced_total'),
    computed,
    redisErrors: value(text, 'response_cache_redis_errors_total'),
  };
}

export async function scrapeCacheCounters(base: URL): Promise<CacheCounters | undefined> {
  try {
    const response = await fetch(new URL('/metrics', base), { signal: AbortSignal.timeout(5000) });
    return response.ok ? parseCacheCounters(await response.text()) : undefined;
  } catch {
    return undefined;
  }
}

const ratio = (part: number, whole: number) => (whole > 0 ? part / whole : NaN);

/** What happened between two scrapes. */
export function cacheReport(before: CacheCounters, after: CacheCounters): CacheReport {
  const computed: Record<string, number> = {};
  for (const kind of new Set([...Object.keys(before.computed), ...Object.keys(after.computed)])) {
    computed[kind] = (after.computed[kind] ?? 0) - (before.computed[kind] ?? 0);
  }
  const d = {
    localHits: after.localHits - before.localHits,
    localMisses: after.localMisses - before.localMisses,
    redisHits: after.redisHits - before.redisHits,
    redisMisses: after.redisMisses - before.redisMisses,
    coalesced: after.coalesced - before.coalesced,
    computed,
    redisErrors: after.redisErrors - before.redisErrors,
  };
  const cached = d.localHits + d.redisHits + d.coalesced;
  const total = cached + Object.values(computed).reduce((a, b) => a + b, 0);
  return {
    ...d,
    hitRatio: ratio(cached, total),
    localHitRatio: ratio(d.localHits, d.localHits + d.localMisses),
    redisHitRatio: ratio(d.redisHits, d.redisHits + d.redisMisses),
  };
}
