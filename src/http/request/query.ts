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
 * The query string as the reference's qs 6.14 (default options) reads it. qs first gathers the pairs
 * by their decoded key, exactly as written, in order of each key's first appearance (a repeated key's
 * values join in order), and only then folds each gathered key into the result. So with
 * `t=A&t[]=B&t=A` the values come out A, A, B. Plain keys repeat without limit; a key with brackets
 * is given to qs, so `k[]=v` and `k[0]=v` are arrays and `k[x]=v` or `k[21]=v` objects; plain keys
 * naming Object.prototype members are ignored, as qs does. (Newer qs turns more than 20 repeats of a
 * plain key into an object, so the whole string is not handed to it.)
 */
function parsePairs(search: string): Array<[string, QueryValue]> {
  const gathered = new Map<string, { parts: string[]; values: string[] }>();
  for (const part of search.split('&').slice(0, PARAMETER_LIMIT)) {
    if (!part) continue;
    const bracketEquals = part.indexOf(']=');
    const pos = bracketEquals === -1 ? part.indexOf('=') : bracketEquals + 1;
    const key = decode(pos === -1 ? part : part.slice(0, pos));
    if (!key) continue;
    const value = pos === -1 ? '' : decode(part.slice(pos + 1));
    const entry = gathered.get(key);
    if (entry === undefined) gathered.set(key, { parts: [part], values: [value] });
    else entry.parts.push(part), entry.values.push(value);
  }
  // each gathered key folds into the result as qs folds it: a key the result already has (exactly as
  // written: `a=1&A=2&a[]=3` gives a: [1, 3] before A) merges into it, in its place
  const folded = new Map<string, QueryValue>();
  const fold = (key: string, value: QueryValue) => {
    const existing = folded.get(key);
    folded.set(key, existing === undefined ? value : mergeValues(existing, value));
  };
  for (const [key, { parts, values }] of gathered) {
    if (key.includes('[')) {
      for (const [k, v] of Object.entries(qs.parse(parts.join('&')) as Record<string, QueryValue>)) fold(k, v);
    } else if (!Object.prototype.hasOwnProperty.call(Object.prototype, key)) {
      fold(key, values.length === 1 ? values[0]! : values);
    }
  }
  const pairs = [...folded];
  // qs and the reference keep the query in plain objects, which list array-index keys first, ascending
  const indexes = pairs.filter(([k]) => isArrayIndex(k)).sort(([a], [b]) => Number(a) - Number(b));
  return indexes.length === 0 ? pairs : [...indexes, ...pairs.filter(([k]) => !isArrayIndex(k))];
}

const isPlainObject = (v: QueryValue): v is { [key: string]: QueryValue } => typeof v === 'object' && !Array.isArray(v);

/**
 * Two values of one key merged as qs (6.14, default options) merges them: an empty string adds
 * nothing; a string or an array joins an array after its items; two arrays join, except items at
 * the same index that are both objects, which merge; objects merge key by key (an array merged with
 * an object becomes an object keyed by index). qs marks a string merged into an object as a member
 * `true`, which no value here can hold: the object is kept as it was (a route rejects an object
 * value whatever its members).
 */
function mergeValues(target: QueryValue, source: QueryValue): QueryValue {
  if (source === '') return target;
  if (typeof source === 'string') {
    if (Array.isArray(target)) return [...target, source];
    return isPlainObject(target) ? target : [target, source];
  }
  if (typeof target === 'string') return [target, ...(Array.isArray(source) ? source : [source])];
  if (Array.isArray(target) && Array.isArray(source)) {
    const merged = [...target];
    source.forEach((item, i) => {
      const at = merged[i];
      if (i >= merged.length) merged[i] = item;
      else if (at !== undefined && typeof at === 'object' && typeof item === 'object') merged[i] = mergeValues(at, item);
      else merged.push(item);
    });
    return merged;
  }
  const merged: { [key: string]: QueryValue } = Array.isArray(target) ? Object.fromEntries(target.map((v, i) => [String(i), v])) : { ...target };
  for (const [key, value] of Object.entries(source)) merged[key] = Object.hasOwn(merged, key) ? mergeValues(merged[key]!, value) : value;
  return merged;
}

/** A key a JavaScript object orders as an integer: "0" to "4294967294" in canonical form. */
const isArrayIndex = (key: string): boolean => /^(0|[1-9]\d{0,9})$/.test(key) && Number(key) < 4294967295;

/**
 * Parses a raw query string the way the reference does: qs semantics, then keys lower-cased (keys
 * differing only in case are merged in the order qs gives them), `order` and `result` values
 * lower-cased.
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

/** A path segment as the reference's router decodes a parameter. */
export function decodedSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}
