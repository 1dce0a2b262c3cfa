/**
 * Read replicas (db.replicas.*, this service's keys) and the reference's db.primaryHost.
 *
 * db.replicas.hosts is a list (YAML sequence, or one string separated by commas: the environment's
 * HIERO_MIRROR_REST_DB_REPLICAS_HOSTS and the shortcut DATABASE_REPLICAS). Each entry is a
 * postgres:// URL, or host[:port] that shares the primary's database, user, password and TLS.
 * `db.replicas` given as a list itself is taken as db.replicas.hosts.
 *
 * db.primaryHost, as in the reference: where it is set, the primary is there and db.host (the
 * reference's read endpoint) becomes the first replica.
 */
import type { Tree } from './tree.ts';
import { isTree } from './tree.ts';
import { ConfigError, duration, text } from './values.ts';

/** One replica: a URL of its own, or a host and port with the primary's other settings. */
export type ReplicaAddress = { url: string } | { host: string; port: number };

export interface ReplicaSettings {
  hosts: ReplicaAddress[];
  /** Replay lag beyond which a replica is taken out of the rotation (ms). */
  maxLagMs: number;
  /** How often each replica's health and lag are checked (ms). */
  checkIntervalMs: number;
}

export const REPLICA_DEFAULTS = { hosts: '', maxLag: '30s', checkInterval: '1s' } as const;

const msOf = (tree: Tree, path: string): number => Number(duration(tree, path)[1] / 1_000_000n);

/** One entry of db.replicas.hosts, or a ConfigError naming it. */
export function parseReplicaAddress(entry: string, defaultPort: number, key = 'db.replicas.hosts'): ReplicaAddress {
  const value = entry.trim();
  const bad = () => new ConfigError(`Invalid configuration: ${key} entry ${JSON.stringify(entry)} must be postgres://user:password@host:port/database or host[:port]`);
  if (/^postgres(ql)?:\/\//i.test(value)) {
    try {
      const url = new URL(value);
      if (!url.hostname) throw bad();
    } catch {
      throw bad();
    }
    return { url: value };
  }
  const match = /^(?:\[([0-9a-fA-F:.]+)\]|([A-Za-z0-9._-]+))(?::(\d{1,5}))?$/.exec(value);
  if (!match) throw bad();
  const port = match[3] === undefined ? defaultPort : Number(match[3]);
  if (!(port >= 1 && port <= 65535)) throw bad();
  return { host: (match[1] ?? match[2])!, port };
}

function entries(value: unknown): string[] {
  if (Array.isArray(value)) return value.map((v) => String(v));
  if (typeof value === 'string') return value.split(',').filter((v) => v.trim() !== '');
  if (value === undefined || value === null) return [];
  throw new ConfigError(`Invalid configuration: db.replicas.hosts must be a list of postgres:// URLs or host[:port], got ${JSON.stringify(value)}`);
}

/** db.replicas.* after validation; `dbPort` is the primary's port (a host without one uses it). */
export function replicaSettings(rest: Tree, dbPort: number): ReplicaSettings {
  const db = isTree(rest.db) ? rest.db : {};
  const raw = db.replicas;
  // `db.replicas: [...]`: the list itself, with the default lag and interval
  const tree: Tree = isTree(raw) ? { db: { replicas: { ...REPLICA_DEFAULTS, ...raw } } } : { db: { replicas: { ...REPLICA_DEFAULTS, hosts: raw ?? '' } } };
  const list = entries((tree.db as Tree & { replicas: Tree }).replicas.hosts);
  return {
    hosts: list.map((entry) => parseReplicaAddress(entry, dbPort)),
    maxLagMs: msOf(tree, 'db.replicas.maxLag'),
    checkIntervalMs: msOf(tree, 'db.replicas.checkInterval'),
  };
}

/** db.primaryHost: empty for none. */
export const primaryHost = (rest: Tree): string => text(rest, 'db.primaryHost').trim();

/** A short name of a replica for logs and metric labels: host:port, never a password. */
export function replicaName(address: ReplicaAddress): string {
  if ('host' in address) return `${address.host.includes(':') ? `[${address.host}]` : address.host}:${address.port}`;
  const url = new URL(address.url);
  return `${url.hostname}:${url.port || '5432'}`;
}
