/**
 * The serving database from the configuration: the primary's pool alone, or with db.replicas.hosts
 * the primary and one pool per replica behind replicatedDb (replicas.ts). Each replica's pool has
 * the primary's settings (size, timeouts, TLS, read-only sessions); a replica given as host[:port]
 * also takes the primary's database, user and password.
 */
import type { Logger } from 'pino';
import type { Config } from '../config/config.ts';
import { type ReplicaAddress, replicaName } from '../config/replicas.ts';
import type { Db } from './db.ts';
import { type PostgresOptions, createPostgresDb } from './postgres.ts';
import { replicatedDb } from './replicas.ts';

/** The connection of a replica: its URL, or the primary's URL or db.* keys with its host and port. */
export function replicaConnection(config: Config, address: ReplicaAddress): { config: Config; url: string | undefined } {
  if ('url' in address) return { config, url: address.url };
  if (config.databaseUrl !== undefined) {
    const url = new URL(config.databaseUrl);
    url.hostname = address.host.includes(':') ? `[${address.host}]` : address.host;
    url.port = String(address.port);
    return { config, url: url.toString() };
  }
  return { config: { ...config, db: { ...config.db, host: address.host, port: address.port } }, url: undefined };
}

/** The Db that serves requests: `options` for every pool, the replicas' own host (or URL) for theirs. */
export function openServingDb(config: Config, options: PostgresOptions, logger?: Logger): Db {
  const primary = createPostgresDb(config, options);
  const { hosts, maxLagMs, checkIntervalMs } = config.db.replicas;
  if (hosts.length === 0) return primary;
  const replicas = hosts.map((address) => {
    const { config: own, url } = replicaConnection(config, address);
    return { name: replicaName(address), db: createPostgresDb(own, { ...options, url }) };
  });
  logger?.info(`reads go to ${replicas.length} replica(s): ${replicas.map((r) => r.name).join(', ')}; the primary serves when none is healthy`);
  return replicatedDb(primary, replicas, { maxLagMs, checkIntervalMs, logger });
}
