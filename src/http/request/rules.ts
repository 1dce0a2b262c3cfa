/**
 * The rules a query parameter's values must pass: each accepts or rejects the operator and value of
 * one `key=op:value` filter (filters.ts applies them with the reference's messages). The rules that
 * several routes share are here; a route's own live beside it.
 */
import type { Operator } from '../../db/range.ts';
import { parseLimit, parseOrder, parseTimestampNs } from './values.ts';

/** Accepts or rejects the operator and value of one filter of a key. */
export type FilterRule = (operator: Operator, value: string) => boolean;

/** A route's accepted keys, each with its rule. */
export type Rules = ReadonlyMap<string, FilterRule>;

/** Any operator, any value. */
export const anyValue: FilterRule = () => true;
/** Any operator; the value must pass `test`. */
export const anyOperator =
  (test: (value: string) => boolean): FilterRule =>
  (_op, value) =>
    test(value);
/** `eq` only (written or implied); the value must pass `test`. */
export const eqOnly =
  (test: (value: string) => boolean): FilterRule =>
  (op, value) =>
    op === 'eq' && test(value);
/** Every operator but `ne`; the value must pass `test`. */
export const notNe =
  (test: (value: string) => boolean): FilterRule =>
  (op, value) =>
    op !== 'ne' && test(value);

/** `limit`: a positive 64-bit integer, any operator (capped at response.limit.max). */
export const LIMIT_RULE: FilterRule = anyOperator((value) => parseLimit(value, 1) !== undefined);
/** `order`: asc or desc, any operator. */
export const ORDER_RULE: FilterRule = anyOperator((value) => parseOrder(value) !== undefined);

/**
 * `timestamp`: any operator; seconds.nanos, the syntax only, as the reference validates it. A value
 * beyond the int64 nanosecond range is refused where the reference's query would fail (the
 * contract's routes: refuseTimestampsBeyondInt64 in filters.ts) or clamped (an upper bound of the
 * network-wide listings).
 */
export const TIMESTAMP_SYNTAX_RULE: FilterRule = anyOperator((value) => parseTimestampNs(value) !== undefined);
