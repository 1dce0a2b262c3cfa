/**
 * Readers of single configuration sections that need more than a number or a string: the TLS files
 * of db.tls.*, the upstream URL, the cache-control headers by route, the log level.
 */
import { readFileSync } from 'node:fs';
import { type Tree, isTree } from './tree.ts';
import { ConfigError, bool, pathValue, text } from './values.ts';

export interface DbTls {
  enabled: boolean;
  ca: string | undefined;
  cert: string | undefined;
  key: string | undefined;
}

/** cache-control of successful answers by the reference's route pattern (response.headers). */
export interface HeaderSettings {
  defaultCacheControl: string;
  byPath: Record<string, string>;
}

export type LogLevel = 'trace' | 'debug' | 'info' | 'warn' | 'error' | 'fatal' | 'silent';

/** The reference's level names (log4js), pino's, and winston's `verbose`, to pino's levels. */
const LOG_LEVELS: Record<string, LogLevel> = {
  all: 'trace',
  trace: 'trace',
  verbose: 'debug',
  debug: 'debug',
  info: 'info',
  warn: 'warn',
  warning: 'warn',
  error: 'error',
  fatal: 'fatal',
  mark: 'fatal',
  off: 'silent',
  silent: 'silent',
};

/** cache-control by route pattern from response.headers (default and per path). */
export function headers(tree: Tree): HeaderSettings {
  const cacheControl = (value: unknown, path: string): string => {
    const header = isTree(value) ? value['cache-control'] : undefined;
    if (typeof header !== 'string') throw new ConfigError(`Invalid configuration: ${path} must set a cache-control string`);
    return header;
  };
  const byPath: Record<string, string> = {};
  const paths = pathValue(tree, 'response.headers.path');
  if (isTree(paths)) {
    for (const [route, value] of Object.entries(paths)) {
      if (isTree(value) && typeof value['cache-control'] === 'string') byPath[route] = value['cache-control'];
    }
  }
  return { defaultCacheControl: cacheControl(pathValue(tree, 'response.headers.default'), 'response.headers.default'), byPath };
}

/** db.tls.*: the reference reads the three files when TLS is enabled; here each is optional. */
export function dbTls(tree: Tree): DbTls {
  const enabled = bool(tree, 'db.tls.enabled');
  const pem = (key: 'ca' | 'cert' | 'key'): string | undefined => {
    const file = text(tree, `db.tls.${key}`).trim();
    if (!enabled || file === '') return undefined;
    try {
      return readFileSync(file, 'utf8');
    } catch (err) {
      const e = err as NodeJS.ErrnoException;
      const why = e.code === 'ENOENT' ? 'no such file' : e.code === 'EACCES' ? 'permission denied' : e.message;
      throw new ConfigError(`Invalid configuration: db.tls.${key} names ${JSON.stringify(file)}, which cannot be read (${why})`);
    }
  };
  return { enabled, ca: pem('ca'), cert: pem('cert'), key: pem('key') };
}

/** upstream.url: an http(s) URL, or empty for none. */
export function upstreamUrl(tree: Tree): URL | undefined {
  const value = text(tree, 'upstream.url').trim();
  if (value === '') return undefined;
  let url: URL | undefined;
  try {
    url = new URL(value);
  } catch {
    url = undefined;
  }
  if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:') || url.search || url.hash || url.username || url.password) {
    throw new ConfigError(`Invalid configuration: upstream.url must be an http or https URL such as https://mirror.example.com, got ${JSON.stringify(value)}`);
  }
  return url;
}

/** log.level (or LOG_LEVEL) in any of the reference's spellings, as pino's level. */
export function logLevel(tree: Tree): LogLevel {
  const value = text(tree, 'log.level');
  const level = LOG_LEVELS[value.trim().toLowerCase()];
  if (level === undefined) {
    throw new ConfigError(`Invalid configuration: log.level must be one of ${Object.keys(LOG_LEVELS).join(', ')}, got ${JSON.stringify(value)}`);
  }
  return level;
}
