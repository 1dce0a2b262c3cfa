import { ClientError, badRequest, invalidParameter } from './errors.ts';
import type { ParsedQuery, QueryValue } from './query.ts';

export type Operator = 'eq' | 'ne' | 'lt' | 'lte' | 'gt' | 'gte';

/** One `key=op:value` item of the query string. */
export interface Filter {
  key: string;
  operator: Operator;
  value: string;
}

const OPERATORS = new Set<string>(['eq', 'ne', 'lt', 'lte', 'gt', 'gte']);

/** Validates the operator and value of one filter of a given key. */
export type FilterRule = (operator: Operator, value: string) => boolean;

/** Splits "op:value" (further ":" parts are ignored, as the reference does). */
function toFilter(key: string, text: string): Filter | undefined {
  const parts = text.split(':');
  if (parts.length === 1) return { key, operator: 'eq', value: text };
  const operator = parts[0]!;
  if (!OPERATORS.has(operator)) return undefined;
  return { key, operator: operator as Operator, value: parts[1]! };
}

/**
 * Turns the parsed query into filters and validates them against the endpoint's rules, in the
 * reference's order: count limits, then invalid values, then unknown keys, all reported together.
 * Bracket-syntax objects (`timestamp[gt]=1`) are rejected with a 400 (the reference answers 500).
 */
export function buildFilters(
  query: ParsedQuery,
  rules: ReadonlyMap<string, FilterRule>,
  maxRepeated: number,
): Filter[] {
  const countErrors: string[] = [];
  const invalid: string[] = [];
  const unknown: string[] = [];
  const filters: Filter[] = [];

  for (const [key, value] of query) {
    const values: QueryValue[] = Array.isArray(value) ? value : [value];
    if (Array.isArray(value) && value.length > maxRepeated) {
      countErrors.push(
        `Parameter values count exceeds maximum number allowed: ${key} count: ${value.length} max: ${maxRepeated}`,
      );
      continue;
    }
    const rule = rules.get(key);
    for (const item of values) {
      if (rule === undefined) {
        unknown.push(`Unknown query parameter: ${key}`);
        continue;
      }
      const filter = typeof item === 'string' ? toFilter(key, item) : undefined;
      if (filter === undefined || !rule(filter.operator, filter.value)) {
        invalid.push(invalidParameter(key));
        continue;
      }
      filters.push(filter);
    }
  }
  const messages = [...countErrors, ...invalid, ...unknown];
  if (messages.length > 0) throw new ClientError(400, messages);
  return filters;
}

/** The value of the last filter with this key, or undefined. */
export function lastValue(filters: readonly Filter[], key: string): string | undefined {
  for (let i = filters.length - 1; i >= 0; i--) if (filters[i]!.key === key) return filters[i]!.value;
  return undefined;
}

export const anyOperator: FilterRule = () => true;
export const eqOnly = (test: (value: string) => boolean): FilterRule => (op, value) => op === 'eq' && test(value);

const INT64_MAX = 9223372036854775807n;

/** `^\d{1,19}$` read as a signed 64-bit integer (overflow wraps negative) and >= min. */
export function isInt64AtLeast(value: string, min: bigint): boolean {
  if (!/^\d{1,19}$/.test(value)) return false;
  const n = BigInt(value);
  return n <= INT64_MAX && n >= min;
}

/** `limit`: positive 64-bit integer, any operator. Converted to min(value, max). */
export const limitRule: FilterRule = (_op, value) => isInt64AtLeast(value, 1n);
/** `order`: asc or desc (already lower-cased by the query parser), any operator. */
export const orderRule: FilterRule = (_op, value) => value === 'asc' || value === 'desc';

export function effectiveLimit(filters: readonly Filter[], defaultLimit: number, max: number): number {
  const value = lastValue(filters, 'limit');
  if (value === undefined) return defaultLimit;
  const n = BigInt(value);
  return n > BigInt(max) ? max : Number(n);
}

export function effectiveOrder(filters: readonly Filter[], fallback: 'asc' | 'desc'): 'asc' | 'desc' {
  return (lastValue(filters, 'order') as 'asc' | 'desc' | undefined) ?? fallback;
}

export { badRequest };
