/**
 * A Citus cluster of our own for the tests: a coordinator and two workers, three clusters of the
 * machine's PostgreSQL with the Citus extension (built from ../shared/vendor by
 * ../shared/tools/citus-build.sh, or Debian's package) in a temporary folder, on free loopback
 * ports. Each has `citus` preloaded and created in its `postgres` database, where the workers are
 * registered, which is what TEST_CITUS_URL must point at (test/support/citus.ts). As root the
 * clusters are made and run by the `postgres` OS user (initdb refuses root). stop() ends all three
 * and removes the folder; an exit hook does the same when a run ends without it.
 *
 * As a command (`.ci/run`): `tsx test/support/citusCluster.ts start` prints `<folder> <coordinator URL>`
 * and leaves the cluster running; `tsx test/support/citusCluster.ts stop <folder>` removes it.
 */
import { execFile, execFileSync } from 'node:child_process';
import { appendFileSync, chownSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { fileURLToPath } from 'node:url';
import { freePort } from '../../bench/lib/cli.ts';
import { clusterUserSkipReason, postgresBin } from './replicaCluster.ts';
import { runStatements } from './sqlScript.ts';

const run = promisify(execFile);
const asRoot = process.getuid?.() === 0;
const text = (file: string, args: string[]) => execFileSync(file, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });

/** The PostgreSQL bin folder whose server has the Citus extension installed; undefined when none has. */
export function citusBin(): string | undefined {
  const bin = postgresBin();
  if (bin === undefined) return undefined;
  // Debian's layout: /usr/lib/postgresql/<major>/{bin,lib}, /usr/share/postgresql/<major>/extension
  const major = dirname(bin).split('/').at(-1)!;
  const lib = join(dirname(bin), 'lib', 'citus.so');
  return existsSync(lib) && existsSync(join('/usr/share/postgresql', major, 'extension', 'citus.control')) ? bin : undefined;
}

/** Why no Citus cluster can be started here, or false when one can. */
export function citusSkipReason(): string | false {
  if (!postgresBin()) return 'needs the PostgreSQL server binaries (/usr/lib/postgresql/*/bin)';
  if (!citusBin()) return 'needs the Citus extension installed into the machine\'s PostgreSQL (../shared/tools/citus-build.sh)';
  return clusterUserSkipReason();
}

export interface CitusCluster {
  dir: string;
  /** The coordinator's `postgres` database: TEST_CITUS_URL. */
  url: string;
  ports: number[];
  stop(): Promise<void>;
}

const NODES = ['coordinator', 'worker1', 'worker2'] as const;

const SETTINGS = (port: number, dir: string) => `# test/support/citusCluster.ts
listen_addresses = '127.0.0.1'
port = ${port}
unix_socket_directories = '${dir}'
shared_preload_libraries = 'citus'
shared_buffers = 64MB
max_connections = 300
max_prepared_transactions = 300
# the v2 layout: ~1,000 partitions x 16 shards
max_locks_per_transaction = 1024
fsync = off
synchronous_commit = off
full_page_writes = off
jit = off
citus.node_conninfo = 'sslmode=disable'
log_min_messages = warning
log_min_error_statement = error
`;

function stopNow(bin: string, data: string): void {
  try {
    const pgCtl = [join(bin, 'pg_ctl'), '-D', data, '-m', 'immediate', 'stop'];
    execFileSync(asRoot ? 'runuser' : pgCtl[0]!, asRoot ? ['-u', 'postgres', '--', ...pgCtl] : pgCtl.slice(1), { stdio: 'ignore' });
  } catch {
    // not running
  }
}

/** Stops the three nodes of the folder and removes it. */
export function removeCitusCluster(dir: string): void {
  const bin = postgresBin();
  if (bin) for (const node of [...NODES].reverse()) if (existsSync(join(dir, node, 'PG_VERSION'))) stopNow(bin, join(dir, node));
  rmSync(dir, { recursive: true, force: true });
}

const live = new Set<() => void>();
process.on('exit', () => {
  for (const cleanup of live) cleanup();
});

/** Starts a coordinator and two workers; `keep` leaves them running when this process exits (the command). */
export async function startCitusCluster(keep = false): Promise<CitusCluster> {
  const bin = citusBin();
  if (!bin) throw new Error('no PostgreSQL with Citus installed');
  const dir = mkdtempSync(join(tmpdir(), 'cqs-citus-'));
  if (asRoot) chownSync(dir, Number(text('id', ['-u', 'postgres']).trim()), Number(text('id', ['-g', 'postgres']).trim()));
  const tool = (name: string, args: string[]) => (asRoot ? run('runuser', ['-u', 'postgres', '--', join(bin, name), ...args]) : run(join(bin, name), args));
  const remove = () => removeCitusCluster(dir);
  if (!keep) live.add(remove);
  const ports: number[] = [];
  try {
    for (const node of NODES) {
      const port = await freePort();
      ports.push(port);
      const data = join(dir, node);
      await tool('initdb', ['-D', data, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--locale=C', '--no-sync']);
      appendFileSync(join(data, 'postgresql.conf'), SETTINGS(port, dir));
      await tool('pg_ctl', ['-D', data, '-l', `${data}.log`, '-w', '-t', '120', 'start']);
    }
    const url = (port: number) => `postgres://postgres@127.0.0.1:${port}/postgres`;
    for (const port of ports) await runStatements(url(port), ['set client_min_messages = warning', 'create extension citus']);
    await runStatements(url(ports[0]!), [
      'set client_min_messages = warning',
      `select citus_set_coordinator_host('127.0.0.1', ${ports[0]})`,
      ...ports.slice(1).map((p) => `select citus_add_node('127.0.0.1', ${p})`),
    ]);
    return {
      dir,
      url: url(ports[0]!),
      ports,
      async stop() {
        remove();
        live.delete(remove);
      },
    };
  } catch (err) {
    remove();
    live.delete(remove);
    throw err;
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const [command, dir] = process.argv.slice(2);
  if (command === 'start') {
    const cluster = await startCitusCluster(true);
    process.stdout.write(`${cluster.dir} ${cluster.url}\n`);
  } else if (command === 'stop' && dir) {
    removeCitusCluster(dir);
  } else {
    process.stderr.write('usage: citusCluster.ts start | stop <folder>\n');
    process.exitCode = 2;
  }
}
