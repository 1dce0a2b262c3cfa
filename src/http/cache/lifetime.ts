/**
 * How long the response cache keeps an answer: as long as its own cache-control allows (max-age;
 * 1 s when it gives none, as the reference; never with no-store or max-age=0), or, for an answer
 * that is settled (can no longer change), cache.response.immutableMaxAge. A replayed answer's max-age counts down
 * with the time it has spent in the cache, as the reference's replays do, so that no downstream
 * cache keeps it past the moment a fresh answer would have expired.
 */

/** max-age of answers whose cache-control names none (the reference's DEFAULT_REDIS_EXPIRY). */
const DEFAULT_MAX_AGE_S = 1;

const MAX_AGE = /(^|[\s,])max-age\s*=\s*"?(\d+)"?/i;
const NO_STORE = /(^|[\s,])(no-store|private)([\s,]|$)/i;

/** The seconds a cache-control header lets the answer be reused; 0 when it may not be stored. */
export function maxAgeSeconds(cacheControl: string): number {
  if (NO_STORE.test(cacheControl)) return 0;
  const match = MAX_AGE.exec(cacheControl);
  return match ? Number(match[2]) : DEFAULT_MAX_AGE_S;
}

/** The cache-control of a replay: max-age lowered to the seconds left (rounded up), never raised. */
export function countDown(cacheControl: string, remainingMs: number): string {
  const match = MAX_AGE.exec(cacheControl);
  if (!match) return cacheControl;
  const left = Math.max(0, Math.ceil(remainingMs / 1000));
  if (left >= Number(match[2])) return cacheControl;
  return cacheControl.replace(MAX_AGE, (_whole, separator: string) => `${separator}max-age=${left}`);
}

/** What the reads behind an answer tell of whether it is settled (settledCompute.ts). */
export interface ReadBasis {
  /**
   * The newest record file's consensus end (ns) on the server that computed the answer, read before
   * the answer's first statement; undefined when unknown (no record file, a failed read).
   */
  settledThrough: bigint | undefined;
  /** That record file's block number, where known (the Indexed-Through header). */
  settledBlock?: bigint | undefined;
  /** A statement of the answer ran on another server than the rest: its data may mix two points of replay. */
  failedOver: boolean;
}

/**
 * The ms an answer may live in the cache (0: not cached). Only complete answers (200) computed on
 * one server are settled: a 206 lacks data that may still come, and a failed-over answer may lack
 * what one of its servers did not have yet.
 */
export function lifetimeMs(
  answer: { status: number; cacheControl: string; settledAfter?: bigint | undefined },
  immutableMaxAgeMs: number,
  basis: ReadBasis,
): { ms: number; settled: boolean } {
  const maxAgeMs = maxAgeSeconds(answer.cacheControl) * 1000;
  if (maxAgeMs === 0) return { ms: 0, settled: false };
  const { settledAfter } = answer;
  if (answer.status === 200 && settledAfter !== undefined && immutableMaxAgeMs > maxAgeMs && !basis.failedOver) {
    const settled = settledAfter === 0n || (basis.settledThrough !== undefined && basis.settledThrough >= settledAfter);
    if (settled) return { ms: immutableMaxAgeMs, settled: true };
  }
  return { ms: maxAgeMs, settled: false };
}
