/**
 * A query string parsed exactly as the reference parses it: qs 6.14.0's `parse` with its default
 * options (the reference calls `qs.parse(queryString)`, then lower-cases keys; query.ts does that
 * part). Later qs releases read some strings differently (an index up to 20 is no longer an array
 * index, more than 20 `a[]` values become an object), and the releases that read them as 6.14.0
 * does are the ones with a published denial-of-service advisory (GHSA-6rw7-vpxm-498p: `a[]` arrays
 * without a limit; here the 1,000-part limit and the 16 KiB request line bound them), so the rules
 * are written here:
 *
 * 1. `%5B` and `%5D` become brackets in the whole string; it is split on `&` (the first 1,000
 *    parts); a part's key ends at its first `]=`, else at its first `=`; key and value are
 *    percent-decoded with `+` as a space (a malformed escape leaves the text); a repeated key's
 *    values join an array, in order.
 * 2. Each key, in the order a plain object lists them (array-index keys first, ascending), is read
 *    as a parent and at most five `[...]` segments (the rest as one more segment): `[]` makes an
 *    array, `[n]` with n from 0 to 20 an array with the value at n, anything else an object member.
 *    A key naming a member of Object.prototype is dropped.
 * 3. The keys' results merge into one object (mergeQs); the arrays lose their holes.
 *
 * A string merged into an object becomes a member `true` (qs's rule); every other leaf is a string.
 */

/** A value as qs leaves it: a string, an array or an object of them, or a member `true`. */
export type QsValue = string | true | QsValue[] | { [key: string]: QsValue };
type QsObject = { [key: string]: QsValue };

const ARRAY_LIMIT = 20;
const DEPTH = 5;
const PARAMETER_LIMIT = 1000;

const has = (object: object, key: string | number): boolean => Object.prototype.hasOwnProperty.call(object, key);
const isObject = (value: QsValue | undefined): value is QsValue[] | QsObject => typeof value === 'object' && value !== null;

/** Percent-decoding as qs does it: "+" is a space; a malformed escape leaves the text as it is. */
function qsDecode(text: string): string {
  const spaced = text.replace(/\+/g, ' ');
  try {
    return decodeURIComponent(spaced);
  } catch {
    return spaced;
  }
}

/** Step 1: each decoded key as written, with its value or values. */
function parseValues(search: string): Record<string, string | string[]> {
  const values: Record<string, string | string[]> = Object.create(null) as Record<string, string | string[]>;
  const clean = search.replace(/%5B/gi, '[').replace(/%5D/gi, ']');
  for (const part of clean.split('&', PARAMETER_LIMIT)) {
    const bracketEquals = part.indexOf(']=');
    const pos = bracketEquals === -1 ? part.indexOf('=') : bracketEquals + 1;
    const key = qsDecode(pos === -1 ? part : part.slice(0, pos));
    const value = pos === -1 ? '' : qsDecode(part.slice(pos + 1));
    const existing = values[key];
    // qs concatenates into a new array each time; pushing gives the same values without the copies
    if (existing === undefined) values[key] = value;
    else if (Array.isArray(existing)) existing.push(value);
    else values[key] = [existing, value];
  }
  return values;
}

/** Step 2: one key's parent and segments, or undefined for a key qs drops. */
function keyChain(key: string): string[] | undefined {
  if (!key) return undefined;
  const brackets = /(\[[^[\]]*])/;
  const child = /(\[[^[\]]*])/g;
  let segment = brackets.exec(key);
  const parent = segment ? key.slice(0, segment.index) : key;
  const chain: string[] = [];
  if (parent) {
    if (has(Object.prototype, parent)) return undefined;
    chain.push(parent);
  }
  let depth = 0;
  // as qs: the segment after the fifth is looked for before the depth is checked, and becomes the rest
  while ((segment = child.exec(key)) !== null && depth < DEPTH) {
    depth += 1;
    if (has(Object.prototype, segment[1]!.slice(1, -1))) return undefined;
    chain.push(segment[1]!);
  }
  if (segment) chain.push(`[${key.slice(segment.index)}]`);
  return chain;
}

/** Step 2: the value of one key, built from its innermost segment out. */
function nest(chain: readonly string[], value: string | string[]): QsValue {
  let leaf: QsValue = value;
  for (let i = chain.length - 1; i >= 0; i--) {
    const root = chain[i]!;
    if (root === '[]') {
      leaf = ([] as QsValue[]).concat(leaf);
      continue;
    }
    const name = root.startsWith('[') && root.endsWith(']') ? root.slice(1, -1) : root;
    const index = Number.parseInt(name, 10);
    if (!Number.isNaN(index) && root !== name && String(index) === name && index >= 0 && index <= ARRAY_LIMIT) {
      const array: QsValue[] = [];
      array[index] = leaf;
      leaf = array;
    } else {
      const object: QsObject = {};
      if (name !== '__proto__') object[name] = leaf;
      leaf = object;
    }
  }
  return leaf;
}

/** Step 3: qs's merge of `source` into `target` (it changes and may return `target`). */
function mergeQs(target: QsValue, source: QsValue | undefined): QsValue {
  if (source === undefined || source === '') return target;
  if (!isObject(source)) {
    if (Array.isArray(target)) {
      target.push(source);
      return target;
    }
    if (isObject(target)) {
      if (typeof source === 'string' && !has(Object.prototype, source)) target[source] = true;
      return target;
    }
    return [target, source];
  }
  if (!isObject(target)) return ([target] as QsValue[]).concat(source);
  if (Array.isArray(target) && Array.isArray(source)) {
    // forEach skips holes, as qs's does
    source.forEach((item, i) => {
      if (has(target, i)) {
        const at = target[i]!;
        if (isObject(at) && isObject(item)) target[i] = mergeQs(at, item);
        else target.push(item);
      } else {
        target[i] = item;
      }
    });
    return target;
  }
  let merged: QsObject;
  if (Array.isArray(target)) {
    merged = {};
    target.forEach((item, i) => (merged[i] = item));
  } else {
    merged = target;
  }
  for (const [key, value] of Object.entries(source)) merged[key] = has(merged, key) ? mergeQs(merged[key]!, value) : value;
  return merged;
}

/** Arrays without their holes, at every depth. */
function compact(value: QsValue): QsValue {
  if (Array.isArray(value)) {
    const items: QsValue[] = [];
    for (let i = 0; i < value.length; i++) if (value[i] !== undefined) items.push(compact(value[i]!));
    return items;
  }
  if (isObject(value)) {
    for (const key of Object.keys(value)) value[key] = compact(value[key]!);
  }
  return value;
}

/** The query string `search` (without "?") as the reference's qs 6.14.0 reads it. */
export function parseQs(search: string): QsObject {
  let result: QsValue = {};
  if (search === '') return {};
  const values = parseValues(search);
  for (const key of Object.keys(values)) {
    const chain = keyChain(key);
    if (chain !== undefined) result = mergeQs(result, nest(chain, values[key]!));
  }
  return compact(result) as QsObject;
}
