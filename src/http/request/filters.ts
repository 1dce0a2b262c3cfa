/**
 * Query filters: `key=op:value` items checked against a route's rules with the reference's
 * messages, in its two styles:
 *
 * - filter style (`parseFilters`): one filter per value; messages grouped as count-exceeded, then
 *   `Invalid parameter`, then `Unknown query parameter` (one per value); extra `:` parts ignored;
 * - key style (`checkKeys`): one pass over the keys in order; an unknown key is reported once;
 *   a value with more than one `:` is invalid.
 */
import type { Operator } from '../../db/range.ts';
import { ClientError, badRequest } from './errors.ts';
import type { ParsedQuery, QueryValue } from './query.ts';
import { countExceeded, invalidParameter, unknownParameter } from './messages.ts';
import type { Rules } from './rules.ts';
import { parseTimestamp } from './values.ts';

/** One `key=op:value` item of the query string. */
export interface Filter {
  key: string;
  operator: Operator;
  value: string;
}

const OPERATORS = new Set<string>(['eq', 'ne', 'lt', 'lte', 'gt', 'gte']);

/** "op:value" (further ":" parts ignored), or "value" meaning eq; undefined for an unknown operator. */
function toFilter(key: string, text: string): Filter | undefined {
  const colon = text.indexOf(':');
  if (colon === -1) return { key, operator: 'eq', value: text };
  const operator = text.slice(0, colon);
  if (!OPERATORS.has(operator)) return undefined;
  const rest = text.slice(colon + 1);
  const end = rest.indexOf(':');
  return { key, operator: operator as Operator, value: end === -1 ? rest : rest.slice(0, end) };
}

const valuesOf = (value: QueryValue): QueryValue[] => (Array.isArray(value) ? value : [value]);

/** The filters of a query and the messages of filter-style validation, by group. */
export interface CollectedFilters {
  filters: Filter[];
  counts: string[];
  invalid: string[];
  unknown: string[];
}

/**
 * The query as filters, checked against the route's rules (filter style), without throwing. A key
 * with too many values is skipped entirely. Bracket objects (`timestamp[gt]=1`) are invalid values
 * of an accepted key (the reference answers 500).
 */
export function collectFilters(query: ParsedQuery, rules: Rules, maxRepeated: number): CollectedFilters {
  const found: CollectedFilters = { filters: [], counts: [], invalid: [], unknown: [] };
  for (const [key, value] of query) {
    if (Array.isArray(value) && value.length > maxRepeated) {
      found.counts.push(countExceeded(key, value.length, maxRepeated));
      continue;
    }
    const rule = rules.get(key);
    for (const item of valuesOf(value)) {
      if (rule === undefined) {
        found.unknown.push(unknownParameter(key));
        continue;
      }
      const filter = typeof item === 'string' ? toFilter(key, item) : undefined;
      if (filter === undefined || !rule(filter.operator, filter.value)) found.invalid.push(invalidParameter(key));
      else found.filters.push(filter);
    }
  }
  return found;
}

/** Filter-style validation: the filters, or one 400 with every message (counts, invalid, unknown). */
export function parseFilters(query: ParsedQuery, rules: Rules, maxRepeated: number): Filter[] {
  const found = collectFilters(query, rules, maxRepeated);
  const messages = [...found.counts, ...found.invalid, ...found.unknown];
  if (messages.length > 0) throw new ClientError(400, messages);
  return found.filters;
}

/**
 * Key-style validation: every key of the query must be accepted, every value of an accepted key
 * must pass its rule with at most one `:`. Returns the filters of the accepted keys, in order.
 * An accepted key holding a bracket object is reported invalid (the reference answers 500).
 */
export function checkKeys(query: ParsedQuery, rules: Rules, maxRepeated: number): Filter[] {
  const messages: string[] = [];
  const filters: Filter[] = [];
  for (const [key, value] of query) {
    const rule = rules.get(key);
    if (rule === undefined) {
      messages.push(unknownParameter(key));
      continue;
    }
    if (Array.isArray(value) && value.length > maxRepeated) {
      messages.push(countExceeded(key, value.length, maxRepeated));
      continue;
    }
    for (const item of valuesOf(value)) {
      const filter = typeof item === 'string' && item.split(':').length <= 2 ? toFilter(key, item) : undefined;
      if (filter === undefined || !rule(filter.operator, filter.value)) messages.push(invalidParameter(key));
      else filters.push(filter);
    }
  }
  if (messages.length > 0) throw new ClientError(400, messages);
  return filters;
}

/** The filters of one key, in query order. */
export const filtersOf = (filters: readonly Filter[], key: string): Filter[] => filters.filter((f) => f.key === key);

/** The value of the last filter with this key, or undefined. */
export function lastValue(filters: readonly Filter[], key: string): string | undefined {
  for (let i = filters.length - 1; i >= 0; i--) if (filters[i]!.key === key) return filters[i]!.value;
  return undefined;
}

/**
 * A `timestamp` of a contract's own routes beyond the int64 nanosecond range passes the reference's
 * validation (TIMESTAMP_SYNTAX_RULE: its messages are the reference's) and then fails its query
 * (503). Called where that query would run, after the contract is resolved (a 404 comes first), it
 * refuses the request with a 400 instead (compatibility.md row 2).
 */
export function refuseTimestampsBeyondInt64(filters: readonly Filter[]): void {
  if (filters.some((f) => f.key === 'timestamp' && parseTimestamp(f.value) === undefined)) throw badRequest(invalidParameter('timestamp'));
}
