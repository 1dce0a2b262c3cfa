/**
 * The request target (RFC 9112 section 3.2), read once here for every use: its host when it is in
 * absolute form, the path the router routes by (admission, the upstream), and the path and query
 * as the reference reads them (links, cache keys, per-path headers).
 */
import type { IncomingMessage } from 'node:http';
import parseurl from 'parseurl';

/**
 * The scheme and authority of a target in absolute form, as the router (find-my-way) reads one:
 * `http` or `https` only; the authority runs to the first `/`, `?` or `#`. Other schemes are no
 * absolute form here: no path of this service can stand for them.
 */
const ABSOLUTE_FORM = /^https?:\/\/([^/?#]*)/i;

/** The authority (`host[:port]`, as sent) of a target in absolute form; undefined for any other form. */
export function targetAuthority(target: string): string | undefined {
  if (target.charCodeAt(0) === 0x2f /* / */) return undefined;
  return ABSOLUTE_FORM.exec(target)?.[1];
}

/**
 * The path the router routes by, without the query: an origin-form target as sent (`//...`
 * included); the path of an absolute-form target, `/` when it has none; undefined for the asterisk
 * form and anything else, which no path can stand for.
 */
export function targetPath(target: string): string | undefined {
  const query = target.indexOf('?');
  const beforeQuery = query < 0 ? target : target.slice(0, query);
  if (beforeQuery.charCodeAt(0) === 0x2f /* / */) return beforeQuery;
  const absolute = ABSOLUTE_FORM.exec(beforeQuery);
  if (absolute === null) return undefined;
  const path = beforeQuery.slice(absolute[0].length);
  return path.startsWith('/') ? path : `/${path}`;
}

/**
 * Characters that make the reference's Express (parseurl) read an origin-form URL with Node's
 * legacy `url.parse` instead of splitting it at "?": whitespace, `#`, U+00A0 and U+FEFF. A raw
 * client can send `#` (a fragment) in a request target; the reference then drops the fragment and
 * escapes a few characters (`"`, `'`, `<`, `>`, `\`, `^`, backtick, `{`, `|`, `}`). parseurl
 * reads every target in absolute form so: its path never holds the scheme and authority.
 */
const LEGACY_PARSE = /[\t\n\f\r #\u00a0\ufeff]/;

/** Path and query of a URL read by parseurl itself (the reference's reading), for a URL `readLegacy` accepts. */
function legacyParts(url: string): { path: string; search: string } {
  const parsed = parseurl({ url } as IncomingMessage);
  const query = parsed?.query;
  return { path: parsed?.pathname ?? '', search: typeof query === 'string' ? query : '' };
}

const readLegacy = (url: string): boolean => (url.charCodeAt(0) === 0x2f /* / */ ? LEGACY_PARSE.test(url) : ABSOLUTE_FORM.test(url));

/** The part of a raw request URL after "?", or "", as the reference reads it. */
export function rawSearch(url: string): string {
  if (readLegacy(url)) return legacyParts(url).search;
  const q = url.indexOf('?');
  return q === -1 ? '' : url.slice(q + 1);
}

/** The path of a raw request URL as the client sent it (still percent-encoded), as the reference reads it. */
export function rawPath(url: string): string {
  if (readLegacy(url)) return legacyParts(url).path;
  const q = url.indexOf('?');
  return q === -1 ? url : url.slice(0, q);
}

/**
 * Each segment of a route's path as the client sent it (percent-encoded, case preserved), keyed by
 * the route's own segment: a parameter by its name (`:contractId` as `contractId`), a literal by
 * itself (`results`). The router matches literals in any case and decodes the path; a route that
 * answers as the reference, which does neither, reads the segments here.
 */
export function rawSegments(routePath: string, path: string): Record<string, string> {
  const names = routePath.split('/');
  const sent = path.replace(/\/$/, '').split('/');
  const segments: Record<string, string> = {};
  names.forEach((name, i) => {
    if (name !== '') segments[name.startsWith(':') ? /^:(\w+)/.exec(name)![1]! : name] = sent[i] ?? '';
  });
  return segments;
}
