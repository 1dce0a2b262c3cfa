import type { Order } from '../../db/sql.ts';
import type { ParsedQuery, QueryValue } from './query.ts';

/** The value a field of the last returned item contributes to the next-page link. */
export interface LastValue {
  value: string;
  inclusive: boolean;
}

const ANY_RANGE = /[gl]t[e]?:/;

function asStrings(value: QueryValue | undefined): string[] {
  if (value === undefined) return [];
  return (Array.isArray(value) ? value : [value]).filter((v): v is string => typeof v === 'string');
}

/**
 * Builds `links.next` with the reference's algorithm: for each field, range tokens pointing in the
 * paging direction are removed and one new token is added (in place when the key stays, at the end
 * when the key was absent or removed). Nothing is URL-encoded.
 */
export function nextLink(
  base: string,
  path: string,
  query: ParsedQuery,
  order: Order,
  lastValues: ReadonlyArray<readonly [string, LastValue]>,
): string {
  const next = nextQuery(query, order, lastValues);
  const pairs: string[] = [];
  for (const [key, value] of next) for (const v of asStrings(value)) pairs.push(`${key}=${v}`);
  const trimmed = path.endsWith('/') ? path.slice(0, -1) : path;
  return `${base}${trimmed}?${pairs.join('&')}`;
}

/** The query of the next-page link (the reference writes it into the request's own query). */
export function nextQuery(query: ParsedQuery, order: Order, lastValues: ReadonlyArray<readonly [string, LastValue]>): ParsedQuery {
  const next = new Map(query);
  const sameDirection = order === 'asc' ? /gt[e]?:/ : /lt[e]?:/;
  for (const [field, last] of lastValues) {
    const token = `${order === 'asc' ? 'gt' : 'lt'}${last.inclusive ? 'e' : ''}:${last.value}`;
    const old = next.get(field);
    const oldValues = asStrings(old);
    let remaining: string[] = oldValues;
    if (Array.isArray(old)) {
      remaining = oldValues.filter((v) => !sameDirection.test(v));
      next.set(field, remaining);
    } else if (typeof old === 'string' && sameDirection.test(old)) {
      next.delete(field);
    }
    if (next.has(field)) {
      if (oldValues.some((v) => ANY_RANGE.test(v))) next.set(field, [...remaining, token]);
    } else {
      next.set(field, token);
    }
  }
  return next;
}
