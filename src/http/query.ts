import qs from 'qs';

/** One query-string value as parsed by qs: a string, an array of strings, or an object (bracket syntax). */
export type QueryValue = string | QueryValue[] | { [key: string]: QueryValue };

/** Query keys lower-cased, in order of first appearance; repeated keys become arrays. */
export type ParsedQuery = Map<string, QueryValue>;

const LOWER_CASED_VALUES = new Set(['order', 'result']);

function lowerValue(value: QueryValue): QueryValue {
  if (typeof value === 'string') return value.toLowerCase();
  if (Array.isArray(value)) return value.map(lowerValue);
  return value;
}

/**
 * Parses a raw query string the way the reference does: qs with default options, keys lower-cased
 * (keys differing only in case are merged in order of appearance), `order` and `result` values lower-cased.
 */
export function parseQuery(search: string): ParsedQuery {
  const parsed = qs.parse(search) as Record<string, QueryValue>;
  const query: ParsedQuery = new Map();
  for (const [rawKey, rawValue] of Object.entries(parsed)) {
    const key = rawKey.toLowerCase();
    const value = LOWER_CASED_VALUES.has(key) ? lowerValue(rawValue) : rawValue;
    const existing = query.get(key);
    if (existing === undefined) {
      query.set(key, value);
    } else {
      const merged: QueryValue[] = [];
      for (const v of [existing, value]) {
        if (Array.isArray(v)) merged.push(...v);
        else merged.push(v);
      }
      query.set(key, merged);
    }
  }
  return query;
}

/** The part of a raw request URL after "?", or "". */
export function rawSearch(url: string): string {
  const q = url.indexOf('?');
  return q === -1 ? '' : url.slice(q + 1);
}

/** The path of a raw request URL as the client sent it (still percent-encoded). */
export function rawPath(url: string): string {
  const q = url.indexOf('?');
  return q === -1 ? url : url.slice(0, q);
}
