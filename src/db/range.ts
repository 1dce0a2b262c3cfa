/**
 * One bound type for every range parameter (timestamp, index, block, slot, contract id, sender):
 * the `eq`/`ne`/`gt`/`gte`/`lt`/`lte` filters of one key, ANDed as the reference does, reduced to
 * an `in` list, an exclusion list and one interval. Pure data and pure functions; `rangeSql`
 * renders a range as conditions on a column.
 */
import { type Comparison, type Sql, comparison, sql } from './sql.ts';

export type Operator = 'eq' | 'ne' | 'lt' | 'lte' | 'gt' | 'gte';

export interface Bound<T> {
  value: T;
  inclusive: boolean;
}

export interface Range<T> {
  /** Every `eq` value: the column is one of them (undefined when no `eq` was given). */
  eq?: T[];
  /** `ne` values: the column is none of them. */
  ne: T[];
  lower?: Bound<T>;
  upper?: Bound<T>;
  /** No value can satisfy every condition. */
  empty: boolean;
}

/**
 * How values of one column compare. A discrete domain (integers) has `step`, so that `gt:v` becomes
 * the inclusive `v + 1` and bounds are always inclusive; values outside [min, max] cannot match.
 */
export interface Domain<T> {
  compare(a: T, b: T): number;
  step?(value: T, by: 1 | -1): T;
  min?: T;
  max?: T;
}

const integerDomain = (min: bigint, max: bigint): Domain<bigint> => ({
  compare: (a, b) => (a < b ? -1 : a > b ? 1 : 0),
  step: (value, by) => value + BigInt(by),
  min,
  max,
});

/** bigint columns (timestamps, entity ids, block numbers). */
export const INT64 = integerDomain(-9223372036854775808n, 9223372036854775807n);
/** int columns (log index, transaction index, action index). */
export const INT32 = integerDomain(-2147483648n, 2147483647n);
/** bytea columns (storage slots), compared as PostgreSQL compares bytea: bytewise, shorter first. */
export const BYTES: Domain<Buffer> = { compare: (a, b) => Buffer.compare(a, b) };

export const emptyRange = <T>(): Range<T> => ({ ne: [], empty: false });

function tighter<T>(domain: Domain<T>, a: Bound<T> | undefined, b: Bound<T>, side: 'lower' | 'upper'): Bound<T> {
  if (a === undefined) return b;
  const c = domain.compare(a.value, b.value);
  if (c === 0) return a.inclusive ? b : a;
  return (side === 'lower' ? c > 0 : c < 0) ? a : b;
}

/** The bound of `gt`/`gte`/`lt`/`lte` `value`, inclusive wherever the domain is discrete. */
function boundOf<T>(domain: Domain<T>, operator: Operator, value: T): Bound<T> {
  const exclusive = operator === 'gt' || operator === 'lt';
  if (exclusive && domain.step) return { value: domain.step(value, operator === 'gt' ? 1 : -1), inclusive: true };
  return { value, inclusive: !exclusive };
}

/** True when `value` passes the interval and the exclusions (the `eq` list aside). */
function satisfies<T>(domain: Domain<T>, range: Range<T>, value: T): boolean {
  const { lower, upper } = range;
  if (lower) {
    const c = domain.compare(value, lower.value);
    if (c < 0 || (c === 0 && !lower.inclusive)) return false;
  }
  if (upper) {
    const c = domain.compare(value, upper.value);
    if (c > 0 || (c === 0 && !upper.inclusive)) return false;
  }
  return !range.ne.some((v) => domain.compare(v, value) === 0);
}

function isEmpty<T>(domain: Domain<T>, range: Range<T>): boolean {
  const { lower, upper } = range;
  if (lower && domain.max !== undefined && domain.compare(lower.value, domain.max) > 0) return true;
  if (upper && domain.min !== undefined && domain.compare(upper.value, domain.min) < 0) return true;
  if (lower && upper) {
    const c = domain.compare(lower.value, upper.value);
    if (c > 0 || (c === 0 && !(lower.inclusive && upper.inclusive))) return true;
  }
  if (range.eq !== undefined && !range.eq.some((v) => satisfies(domain, range, v))) return true;
  return false;
}

/** The range with one more condition `column <operator> value`. */
export function narrow<T>(range: Range<T>, operator: Operator, value: T, domain: Domain<T>): Range<T> {
  const next: Range<T> = { ...range, ne: range.ne };
  switch (operator) {
    case 'eq':
      next.eq = [...(range.eq ?? []), value];
      break;
    case 'ne':
      next.ne = [...range.ne, value];
      break;
    case 'gt':
    case 'gte':
      next.lower = tighter(domain, range.lower, boundOf(domain, operator, value), 'lower');
      break;
    case 'lt':
    case 'lte':
      next.upper = tighter(domain, range.upper, boundOf(domain, operator, value), 'upper');
      break;
  }
  next.empty = isEmpty(domain, next);
  return next;
}

/** The range of a list of conditions on one column. */
export function rangeOf<T>(conditions: Iterable<{ operator: Operator; value: T }>, domain: Domain<T>): Range<T> {
  let range = emptyRange<T>();
  for (const { operator, value } of conditions) range = narrow(range, operator, value, domain);
  return range;
}

/** True when `value` satisfies every condition of the range. */
export const contains = <T>(range: Range<T>, value: T, domain: Domain<T>): boolean =>
  satisfies(domain, range, value) && (range.eq === undefined || range.eq.some((v) => domain.compare(v, value) === 0));

/** True when the range holds no condition at all. */
export const isUnbounded = <T>(range: Range<T>): boolean =>
  range.eq === undefined && range.ne.length === 0 && range.lower === undefined && range.upper === undefined;

/** The single value the range allows when it is one `eq` value or a closed one-value interval. */
export function singleValue<T>(range: Range<T>, domain: Domain<T>): T | undefined {
  if (range.eq !== undefined) {
    const distinct = unique(range.eq, domain);
    return distinct.length === 1 ? distinct[0] : undefined;
  }
  const { lower, upper } = range;
  if (lower?.inclusive && upper?.inclusive && domain.compare(lower.value, upper.value) === 0) return lower.value;
  return undefined;
}

function unique<T>(values: readonly T[], domain: Domain<T>): T[] {
  const out: T[] = [];
  for (const v of values) if (!out.some((o) => domain.compare(o, v) === 0)) out.push(v);
  return out;
}

/** Array parameter types, as fixed SQL text. */
const ARRAY_CASTS = { bigint: sql`::bigint[]`, int: sql`::int[]`, bytea: sql`::bytea[]` } as const;
export type ColumnType = keyof typeof ARRAY_CASTS;

const param = (value: unknown): unknown => (typeof value === 'bigint' ? value.toString() : value);

/**
 * The range as conditions on `column`: one `=` for a single value (so that ordered index scans
 * apply), `= any(array)` for several, `>=`/`>`/`<=`/`<` for the interval, `<> all(array)` for
 * exclusions.
 */
export function rangeSql<T>(column: Sql, range: Range<T>, type: ColumnType, domain: Domain<T>): Sql[] {
  const out: Sql[] = [];
  const one = singleValue(range, domain);
  if (one !== undefined && (range.eq !== undefined || (range.lower && range.upper))) {
    out.push(sql`${column} = ${param(one)}`);
    if (range.eq === undefined) return [...out, ...exclusions(column, range, type, domain)];
  } else if (range.eq !== undefined) {
    out.push(sql`${column} = any(${unique(range.eq, domain).map(param)}${ARRAY_CASTS[type]})`);
  }
  const { lower, upper } = range;
  const compare = (op: Comparison, value: T) => sql`${column} ${comparison(op)} ${param(value)}`;
  if (lower) out.push(compare(lower.inclusive ? '>=' : '>', lower.value));
  if (upper) out.push(compare(upper.inclusive ? '<=' : '<', upper.value));
  return [...out, ...exclusions(column, range, type, domain)];
}

function exclusions<T>(column: Sql, range: Range<T>, type: ColumnType, domain: Domain<T>): Sql[] {
  if (range.ne.length === 0) return [];
  return [sql`${column} <> all(${unique(range.ne, domain).map(param)}${ARRAY_CASTS[type]})`];
}
