/**
 * A PostgreSQL primary and a streaming replica of it (pg_basebackup -R), as two clusters of the
 * machine's PostgreSQL in a temporary folder: for the replica tests and the conformance run with
 * its reads on a replica. initdb refuses root: as root the clusters are made and run by the
 * `postgres` OS user (runuser) in a folder it owns. stop() ends both and removes the folder; an
 * exit hook does the same when a run ends without it.
 */
import { execFile, execFileSync } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';

const run = promisify(execFile);
const execFileSyncText = (file: string, args: string[]) => execFileSync(file, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });

/** The bin folder of the newest PostgreSQL under /usr/lib/postgresql with initdb, pg_ctl and pg_basebackup; undefined when none. */
export function postgresBin(): string | undefined {
  const root = '/usr/lib/postgresql';
  if (!existsSync(root)) return undefined;
  const versions = readdirSync(root)
    .filter((v) => /^\d+$/.test(v))
    .sort((a, b) => Number(b) - Number(a));
  for (const version of versions) {
    const bin = join(root, version, 'bin');
    if (['initdb', 'pg_ctl', 'pg_basebackup'].every((tool) => existsSync(join(bin, tool)))) return bin;
  }
  return undefined;
}

/** Why clusters of our own cannot be made here as this OS user (initdb refuses root), or false when they can. */
export function clusterUserSkipReason(): string | false {
  if (process.getuid?.() !== 0) return false;
  // as root, the postgres OS user runs the clusters
  try {
    execFileSyncText('id', ['-u', 'postgres']);
  } catch {
    return 'runs as root, and there is no postgres OS user to run initdb as';
  }
  return false;
}

/** Why the replica tests cannot run here, or false when they can. */
export function replicaSkipReason(): string | false {
  if (!postgresBin()) return 'needs the PostgreSQL server binaries (initdb, pg_ctl, pg_basebackup under /usr/lib/postgresql/*/bin: apt-get install postgresql)';
  return clusterUserSkipReason();
}

export interface ReplicaCluster {
  primaryUrl: string;
  replicaUrl: string;
  primaryPort: number;
  replicaPort: number;
  /** Stops the replica (pg_ctl stop -m fast: its sessions are ended, as when a replica host goes away). */
  stopReplica(): Promise<void>;
  startReplica(): Promise<void>;
  stopPrimary(): Promise<void>;
  /** Waits until the replica has replayed everything the primary has written so far. */
  caughtUp(timeoutMs?: number): Promise<void>;
  stop(): Promise<void>;
}

const live = new Set<() => void>();
process.on('exit', () => {
  for (const cleanup of live) cleanup();
});

export async function startReplicaCluster(primaryPort: number, replicaPort: number): Promise<ReplicaCluster> {
  const bin = postgresBin();
  if (!bin) throw new Error('no PostgreSQL binaries');
  const asRoot = process.getuid?.() === 0;
  const dir = mkdtempSync(join(tmpdir(), 'cqs-replica-'));
  if (asRoot) {
    const uid = Number(execFileSyncText('id', ['-u', 'postgres']).trim());
    const gid = Number(execFileSyncText('id', ['-g', 'postgres']).trim());
    chownSync(dir, uid, gid);
  }
  const tool = (name: string, args: string[]) =>
    asRoot ? run('runuser', ['-u', 'postgres', '--', join(bin, name), ...args]) : run(join(bin, name), args);
  const primaryDir = join(dir, 'primary');
  const replicaDir = join(dir, 'replica');
  const serverOptions = (port: number) => `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c shared_buffers=32MB -c max_connections=60`;
  const pgCtl = (data: string, port: number, ...args: string[]) =>
    tool('pg_ctl', ['-D', data, '-l', `${data}.log`, '-o', serverOptions(port), '-w', '-t', '60', ...args]);
  const removeNow = () => {
    for (const data of [replicaDir, primaryDir]) {
      try {
        execFileSync(asRoot ? 'runuser' : join(bin, 'pg_ctl'), asRoot ? ['-u', 'postgres', '--', join(bin, 'pg_ctl'), '-D', data, '-m', 'immediate', 'stop'] : ['-D', data, '-m', 'immediate', 'stop'], { stdio: 'ignore' });
      } catch {
        // not running
      }
    }
    rmSync(dir, { recursive: true, force: true });
  };
  live.add(removeNow);
  try {
    await tool('initdb', ['-D', primaryDir, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--locale=C', '--no-sync']);
    await pgCtl(primaryDir, primaryPort, 'start');
    await tool('pg_basebackup', ['-h', '127.0.0.1', '-p', String(primaryPort), '-U', 'postgres', '-D', replicaDir, '-R', '-X', 'stream', '-c', 'fast', '--no-sync']);
    await pgCtl(replicaDir, replicaPort, 'start');
  } catch (err) {
    removeNow();
    live.delete(removeNow);
    throw err;
  }
  const primaryUrl = `postgres://postgres@127.0.0.1:${primaryPort}/postgres`;
  const replicaUrl = `postgres://postgres@127.0.0.1:${replicaPort}/postgres`;
  const one = async <R extends pg.QueryResultRow>(url: string, text: string): Promise<R> => {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      return (await client.query<R>(text)).rows[0]!;
    } finally {
      await client.end();
    }
  };
  return {
    primaryUrl,
    replicaUrl,
    primaryPort,
    replicaPort,
    stopReplica: async () => void (await pgCtl(replicaDir, replicaPort, '-m', 'fast', 'stop')),
    startReplica: async () => void (await pgCtl(replicaDir, replicaPort, 'start')),
    stopPrimary: async () => void (await pgCtl(primaryDir, primaryPort, '-m', 'fast', 'stop')),
    async caughtUp(timeoutMs = 30_000) {
      const { lsn } = await one<{ lsn: string }>(primaryUrl, 'select pg_current_wal_lsn()::text as lsn');
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const { done } = await one<{ done: boolean }>(replicaUrl, `select pg_last_wal_replay_lsn() >= '${lsn}'::pg_lsn as done`);
        if (done) return;
        if (Date.now() > deadline) throw new Error(`the replica did not reach ${lsn} within ${timeoutMs} ms`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    },
    async stop() {
      removeNow();
      live.delete(removeNow);
    },
  };
}
