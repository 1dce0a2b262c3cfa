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

/** qs's default limit on the number of key=value pairs parsed; the rest are dropped. */
const PARAMETER_LIMIT = 1000;

/** Percent-decoding as qs does it: "+" is a space; a malformed escape leaves the text as it is. */
function decode(text: string): string {
  const spaced = text.replace(/\+/g, ' ');
  try {
    return decodeURIComponent(spaced);
  } catch {
    return spaced;
  }
}

/**
 * The query string as the reference's qs 6.14 (default options) reads it, pair by pair: plain keys
 * repeat without limit; a key with brackets is given to qs, so `k[]=v` and `k[0]=v` are arrays and
 * `k[x]=v` or `k[21]=v` objects; keys naming Object.prototype members are ignored, as qs does.
 * (Newer qs turns more than 20 repeats of a plain key into an object, so pairs are not parsed at once.)
 */
function parsePairs(search: string): Array<[string, QueryValue]> {
  const pairs: Array<[string, QueryValue]> = [];
  const parts = search.split('&').slice(0, PARAMETER_LIMIT);
  for (const part of parts) {
    if (!part) continue;
    const bracketEquals = part.indexOf(']=');
    const pos = bracketEquals === -1 ? part.indexOf('=') : bracketEquals + 1;
    const key = decode(pos === -1 ? part : part.slice(0, pos));
    if (!key) continue;
    if (key.includes('[')) {
      for (const [k, v] of Object.entries(qs.parse(part) as Record<string, QueryValue>)) pairs.push([k, v]);
    } else if (!Object.prototype.hasOwnProperty.call(Object.prototype, key)) {
      pairs.push([key, pos === -1 ? '' : decode(part.slice(pos + 1))]);
    }
  }
  return pairs;
}

/**
 * Parses a raw query string the way the reference does: qs semantics, keys lower-cased (keys
 * differing only in case are merged in order of appearance), `order` and `result` values lower-cased.
 */
export function parseQuery(search: string): ParsedQuery {
  const query: ParsedQuery = new Map();
  for (const [rawKey, rawValue] of parsePairs(search)) {
    const key = rawKey.toLowerCase();
    const value = LOWER_CASED_VALUES.has(key) ? lowerValue(rawValue) : rawValue;
    const existing = query.get(key);
    if (existing === undefined) {
      query.set(key, value);
    } else if (isObject(existing) || isObject(value)) {
      query.set(key, isObject(existing) ? existing : value);
    } else {
      query.set(key, [...(Array.isArray(existing) ? existing : [existing]), ...(Array.isArray(value) ? value : [value])]);
    }
  }
  return query;
}

const isObject = (v: QueryValue): boolean => typeof v === 'object' && !Array.isArray(v);

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
