/** Latency/status bookkeeping per URL; percentiles are exact (sorted samples) — fine at benchmark scale. */

export interface UrlStats {
  path: string;
  count: number;
  /** response times in ms, in arrival order */
  latencies: number[];
  statuses: Map<number, number>;
  bytes: number;
  /** connection errors and timeouts attributed to this URL */
  errors: number;
}

export function newUrlStats(path: string): UrlStats {
  return { path, count: 0, latencies: [], statuses: new Map(), bytes: 0, errors: 0 };
}

export function recordResponse(stats: UrlStats, status: number, ms: number, bytes: number): void {
  stats.count++;
  stats.latencies.push(ms);
  stats.bytes += bytes;
  stats.statuses.set(status, (stats.statuses.get(status) ?? 0) + 1);
}

export interface Summary {
  requests: number;
  rps: number;
  mean: number;
  p50: number;
  p90: number;
  p99: number;
  max: number;
  non2xx: number;
  status5xx: number;
  errors: number;
  statuses: Record<string, number>;
  bytesPerRequest: number;
}

/** Nearest-rank percentile of an ascending array. */
export function percentile(sorted: ArrayLike<number>, p: number): number {
  if (sorted.length === 0) return NaN;
  const rank = Math.min(sorted.length, Math.max(1, Math.ceil((p / 100) * sorted.length)));
  return sorted[rank - 1]!;
}

export function summarize(group: UrlStats[], seconds: number): Summary {
  let n = 0;
  for (const s of group) n += s.latencies.length;
  const all = new Float64Array(n);
  let i = 0;
  let sum = 0;
  let bytes = 0;
  let errors = 0;
  const statuses = new Map<number, number>();
  for (const s of group) {
    for (const v of s.latencies) {
      all[i++] = v;
      sum += v;
    }
    bytes += s.bytes;
    errors += s.errors;
    for (const [code, c] of s.statuses) statuses.set(code, (statuses.get(code) ?? 0) + c);
  }
  all.sort();
  let non2xx = 0;
  let status5xx = 0;
  for (const [code, c] of statuses) {
    if (code < 200 || code > 299) non2xx += c;
    if (code >= 500) status5xx += c;
  }
  return {
    requests: n,
    rps: seconds > 0 ? n / seconds : 0,
    mean: n ? sum / n : NaN,
    p50: percentile(all, 50),
    p90: percentile(all, 90),
    p99: percentile(all, 99),
    max: n ? all[n - 1]! : NaN,
    non2xx,
    status5xx,
    errors,
    statuses: Object.fromEntries([...statuses].sort((a, b) => a[0] - b[0]).map(([k, v]) => [String(k), v])),
    bytesPerRequest: n ? Math.round(bytes / n) : 0,
  };
}
