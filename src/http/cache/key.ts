/**
 * Response cache keys. An answer is a function of what a route handler sees (RequestContext): the
 * path as sent (its case picks the cache-control header, and links repeat it), the parsed query
 * (keys lower-cased, values decoded, order kept: links repeat it), the link prefix (with
 * response.includeHostInLink), the configuration and the database. The key holds all of them and
 * nothing else, so requests that differ only in what no handler sees share one entry: HEAD and GET,
 * Accept-Encoding (bodies are cached before compression), Host without includeHostInLink,
 * percent-escapes and `+` in the query, the case of query keys and of `order`/`result` values.
 */
import { createHash } from 'node:crypto';
import type { Config } from '../../config/config.ts';
import { toJson } from '../../format/json.ts';
import type { ParsedQuery } from '../request/query.ts';

/** Bumped when the stored format or the key derivation changes: old entries are then never read. */
export const KEY_FORMAT = 'v1';

/** What of a request an answer depends on. */
export interface CacheableRequest {
  /** The path exactly as sent. */
  path: string;
  query: ParsedQuery;
  /** "" or the scheme, host and port that links start with. */
  linkBase: string;
}

const digest = (text: string, length: number): string => createHash('sha256').update(text).digest('base64url').slice(0, length);

/** Who the database is, without its password. */
function databaseIdentity(config: Config): string {
  if (config.databaseUrl !== undefined) {
    const url = new URL(config.databaseUrl);
    url.password = '';
    return url.toString();
  }
  if (!config.externalDatabase) return 'embedded';
  const { host, port, name, username } = config.db;
  return `postgres://${username}@${host}:${port}/${name}`;
}

/**
 * The part of every key of one deployment: the configured prefix, the key format, and a fingerprint
 * of the service version, the database and every setting that shapes answers. Processes that share
 * Redis share entries exactly when they would answer alike; a new release or a changed setting
 * starts with an empty cache instead of serving answers shaped the old way.
 */
export function keyNamespace(config: Config, version: string): string {
  const shaping = toJson({
    version,
    database: databaseIdentity(config),
    response: config.response,
    query: config.query,
    common: config.common,
    headers: config.headers,
    additions: config.additions,
  });
  return `${config.cache.keyPrefix}${KEY_FORMAT}:${digest(shaping, 12)}:`;
}

/**
 * What identifies a request within one deployment: path, query and link prefix, unambiguously
 * joined. The in-process tier is keyed by it as it is (no digest to compute on a hit).
 */
export const requestIdentity = ({ path, query, linkBase }: CacheableRequest): string => JSON.stringify([linkBase, path, [...query]]);

/** The shared (Redis) key of a request identity: the namespace, then a digest of the identity. */
export const sharedKey = (namespace: string, identity: string): string => namespace + digest(identity, 32);

export const cacheKey = (namespace: string, request: CacheableRequest): string => sharedKey(namespace, requestIdentity(request));
