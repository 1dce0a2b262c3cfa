/**
 * How long the response cache keeps an answer: as long as its own cache-control allows (max-age;
 * 1 s when it gives none, as the reference; never with no-store or max-age=0), or, for an answer
 * that can no longer change, cache.response.immutableMaxAge. A replayed answer's max-age counts down
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

/**
 * The newest record file's consensus end (ns) as far as the cache knows it; answers that declare
 * `immutableAfter` are final once it is reached.
 */
export type SettledThrough = () => Promise<bigint | undefined>;

/**
 * The ms an answer may live in the cache (0: not cached). Only complete answers (200) are final: a
 * 206 lacks data that may still come.
 */
export async function lifetimeMs(
  answer: { status: number; cacheControl: string; immutableAfter?: bigint | undefined },
  immutableMaxAgeMs: number,
  settledThrough: SettledThrough,
): Promise<{ ms: number; immutable: boolean }> {
  const maxAgeMs = maxAgeSeconds(answer.cacheControl) * 1000;
  if (maxAgeMs === 0) return { ms: 0, immutable: false };
  if (answer.status === 200 && answer.immutableAfter !== undefined && immutableMaxAgeMs > maxAgeMs) {
    const settled = answer.immutableAfter === 0n ? 0n : await settledThrough();
    if (settled !== undefined && settled >= answer.immutableAfter) return { ms: immutableMaxAgeMs, immutable: true };
  }
  return { ms: maxAgeMs, immutable: false };
}
