/**
 * The timestamp normalization of the network-wide listings (/contracts/results and
 * /contracts/results/logs), pure: the user's bounds (and a block's)
 * become one range; a contradictory range and a bound of 0 drop out; an upper bound beyond int64
 * is clamped; with bindTimestampRange an open range is bound to [first transaction, now] and cut to
 * maxTransactionsTimestampRange at the end nearest the requested order.
 */
import { INT64, type Operator, type Range, emptyRange, narrow } from '../../db/range.ts';
import type { Db } from '../../db/db.ts';
import { type Order, sql } from '../../db/sql.ts';

export interface TimestampCondition {
  operator: Operator;
  /** ns; may exceed int64 (seconds up to 9999999999). */
  value: bigint;
}

export interface BindOptions {
  /** query.bindTimestampRange */
  enabled: boolean;
  /** query.maxTransactionsTimestampRange in ns */
  maxRangeNs: bigint;
  order: Order;
  now: bigint;
  /** The first transaction's timestamp (0 when there is none); asked for only when needed. */
  firstTransaction: () => Promise<bigint>;
}

export interface NetworkTimestamps {
  range: Range<bigint>;
  /** With bindTimestampRange: the bound that the next page starts from (exclusive), if the range was cut. */
  next?: bigint;
  /**
   * The highest timestamp the range can match when the conditions cap it (an upper bound or `eq`
   * that takes effect), never the clock's `now`: once the network is settled through it, so is the page.
   */
  upperBound?: bigint;
}

const MAX = INT64.max!;

/** A lower bound or `eq` beyond int64 can match nothing the reference could read (it answers 503). */
export const isOutOfRange = (c: TimestampCondition): boolean => c.value > MAX && !(c.operator === 'lt' || c.operator === 'lte');

export async function normalizeTimestamps(conditions: readonly TimestampCondition[], bind: BindOptions): Promise<NetworkTimestamps> {
  const eq = [...new Set(conditions.filter((c) => c.operator === 'eq').map((c) => c.value))];
  const ne = [...new Set(conditions.filter((c) => c.operator === 'ne').map((c) => c.value))];
  let lo: bigint | undefined;
  let hi: bigint | undefined;
  for (const { operator, value } of conditions) {
    if (operator === 'gt' || operator === 'gte') {
      const bound = operator === 'gt' ? value + 1n : value;
      lo = lo === undefined || bound > lo ? bound : lo;
    } else if (operator === 'lt' || operator === 'lte') {
      const bound = operator === 'lt' ? value - 1n : value;
      const start = hi ?? MAX;
      hi = bound < start ? bound : start;
    }
  }
  if (lo !== undefined && hi !== undefined && hi - lo + 1n <= 0n) {
    lo = undefined;
    hi = undefined;
  }
  // With bindTimestampRange, a range without eq is cut relative to the clock: never settled.
  const upperBound =
    eq.length > 0 ? eq.reduce((a, b) => (a > b ? a : b)) : hi !== undefined && hi !== 0n && !bind.enabled ? hi : undefined;
  let next: bigint | undefined;
  if (bind.enabled && eq.length === 0) {
    lo ??= await bind.firstTransaction();
    hi ??= bind.now;
    if (hi - lo + 1n > bind.maxRangeNs) {
      if (bind.order === 'desc') lo = next = hi - bind.maxRangeNs + 1n;
      else hi = next = lo + bind.maxRangeNs - 1n;
    }
  }
  let range = emptyRange<bigint>();
  if (lo !== undefined && lo !== 0n) range = narrow(range, 'gte', lo, INT64);
  if (hi !== undefined && hi !== 0n) range = narrow(range, 'lte', hi, INT64);
  for (const value of eq) range = narrow(range, 'eq', value, INT64);
  for (const value of ne) range = narrow(range, 'ne', value, INT64);
  const result: NetworkTimestamps = { range };
  if (next !== undefined) result.next = next;
  if (upperBound !== undefined) result.upperBound = upperBound;
  return result;
}

/** The consensus timestamp of the first transaction, 0 without any (bindTimestampRange's lower end). */
export async function findFirstTransaction(db: Db): Promise<bigint> {
  const rows = await db.query<{ consensus_timestamp: string }>(
    sql`select consensus_timestamp from transaction order by consensus_timestamp limit 1`,
  );
  return rows.length === 0 ? 0n : BigInt(rows[0]!.consensus_timestamp);
}
