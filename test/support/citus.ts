/**
 * Scratch databases on a real Citus cluster (the `postgres-citus` backend): TEST_CITUS_URL names the
 * coordinator's maintenance database (`postgres`), where the citus extension is created and the
 * workers are registered (test/support/citusCluster.ts starts such a cluster). Citus 12.1 does not
 * propagate CREATE DATABASE, so every database is created on the coordinator and on each worker, with
 * the extension in each and the nodes registered in the coordinator's; DROP likewise.
 *
 * The importer's v2 layout (this service's v1 schema re-shaped by test/support/v2/layout.sql: monthly
 * partitions by nanosecond timestamps, then Citus's own create_distributed_table and
 * create_reference_table) is built once
 * per cluster as a template database on every node (a minute or two: some 15,000 shards), and each
 * test database is a copy of it on every node. A copy of a Citus database is a working one: the
 * metadata names the nodes by host and port, and the coordinator reaches a worker's database of the
 * same name.
 */
import { readFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';

/** The coordinator's URL, when the Citus backend is wanted. */
export const citusUrl = (): string | undefined => process.env.TEST_CITUS_URL || undefined;

export interface CitusNode {
  host: string;
  port: number;
}

const withDatabase = (url: string, name: string): string => {
  const target = new URL(url);
  target.pathname = `/${name}`;
  return target.toString();
};

/** `url` with the host and port of `node` (user and password kept). */
const onNode = (url: string, node: CitusNode, name: string): string => {
  const target = new URL(withDatabase(url, name));
  target.hostname = node.host;
  target.port = String(node.port);
  return target.toString();
};

async function withClient<T>(url: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

/** The coordinator (first) and the active primary workers registered in the maintenance database. */
export async function citusNodes(url: string): Promise<CitusNode[]> {
  const coordinator = new URL(url);
  const { rows } = await withClient(url, (c) =>
    c.query<{ host: string; port: number }>(
      `select nodename as host, nodeport as port from pg_dist_node
        where groupid > 0 and noderole = 'primary' and isactive order by nodeid`,
    ),
  );
  if (rows.length === 0) throw new Error(`TEST_CITUS_URL (${coordinator.host}): no worker is registered in its pg_dist_node`);
  return [{ host: coordinator.hostname, port: Number(coordinator.port || 5432) }, ...rows];
}

/** On every node: the database, with citus; on the coordinator the nodes registered in it. */
async function createOnNodes(url: string, nodes: CitusNode[], name: string, template?: string): Promise<void> {
  const [coordinator, ...workers] = nodes;
  for (const node of nodes) {
    await withClient(onNode(url, node, 'postgres'), (c) =>
      c.query(`create database ${name}${template ? ` template ${template} strategy file_copy` : ''}`),
    );
  }
  if (template) return; // the copies hold the extension and the metadata
  for (const node of nodes) {
    await withClient(onNode(url, node, name), (c) => c.query('set client_min_messages = warning; create extension citus'));
  }
  await withClient(onNode(url, coordinator!, name), async (c) => {
    await c.query('set client_min_messages = warning');
    await c.query('select citus_set_coordinator_host($1, $2)', [coordinator!.host, coordinator!.port]);
    for (const worker of workers) await c.query('select citus_add_node($1, $2)', [worker.host, worker.port]);
  });
}

/** Drops the database on every node, workers first (the coordinator's connections to them go with it). */
async function dropOnNodes(url: string, nodes: CitusNode[], name: string): Promise<void> {
  for (const node of [...nodes.slice(1), nodes[0]!]) await dropOnNode(url, node, name);
}

const DROP_ATTEMPTS = 8;

/**
 * `drop database ... with (force)` ends the sessions in the database, but still refuses (55006) while a
 * prepared transaction names it (Citus prepares one on each worker a distributed transaction wrote,
 * and its recovery daemon settles leftovers only once a minute), or while an ended session has not
 * gone within five seconds (seen on a loaded CI machine). Each refusal rolls back the database's
 * prepared transactions and waits a little longer; the last one is thrown with the node and the
 * server's detail.
 */
async function dropOnNode(url: string, node: CitusNode, name: string): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      await withClient(onNode(url, node, 'postgres'), (c) => c.query(`drop database if exists ${name} with (force)`));
      return;
    } catch (error) {
      const { code, detail, message } = error as pg.DatabaseError;
      if (code !== '55006' || attempt === DROP_ATTEMPTS) {
        throw new Error(`drop database ${name} on ${node.host}:${node.port} (attempt ${attempt}): ${message}${detail ? ` (${detail})` : ''}`, { cause: error });
      }
      process.stderr.write(`# drop database ${name} on ${node.host}:${node.port} refused (${detail ?? message}); again\n`);
      await rollbackPrepared(url, node, name);
      await sleep(500 * attempt);
    }
  }
}

/** Rolls back the prepared transactions of database `name` on `node` (only possible from inside it). */
async function rollbackPrepared(url: string, node: CitusNode, name: string): Promise<void> {
  await withClient(onNode(url, node, name), async (c) => {
    const { rows } = await c.query<{ gid: string }>('select gid from pg_prepared_xacts where database = current_database()');
    for (const { gid } of rows) await c.query(`rollback prepared '${gid.replaceAll("'", "''")}'`);
  }).catch(() => {}); // the database may be gone, or refuse connections: the next drop attempt tells
}

const LAYOUT_FILES = ['../../src/db/migrations/0001_mirror_node_v1_schema.sql', 'v2/layout.sql'].map(
  (f) => new URL(f, import.meta.url),
);

/**
 * The template database with the v2 layout on Citus, named by a hash of the DDL and of the nodes; built
 * once under an advisory lock (parallel test processes wait for the first). Connections to it are
 * then refused (allow_connections false), so that no session (Citus's maintenance daemon included)
 * keeps it from being copied.
 */
export async function citusTemplate(url: string, nodes: CitusNode[]): Promise<string> {
  const files = LAYOUT_FILES.map((f) => readFileSync(f, 'utf8'));
  const hash = createHash('sha1').update(files.join('\n;\n')).update(JSON.stringify(nodes)).digest('hex').slice(0, 12);
  const name = `cqs_citus_template_${hash}`;
  await withClient(url, async (admin) => {
    await admin.query('select pg_advisory_lock(18003)');
    try {
      const { rows } = await admin.query('select 1 from pg_database where datname = $1', [name]);
      if (rows.length > 0) return;
      const building = `${name}_building`;
      await dropOnNodes(url, nodes, building);
      await createOnNodes(url, nodes, building);
      await withClient(onNode(url, nodes[0]!, building), async (c) => {
        await c.query('set client_min_messages = warning');
        for (const ddl of files) await c.query(ddl);
      });
      // workers first: the coordinator's name is the sign that every node has it
      for (const node of [...nodes.slice(1), nodes[0]!]) {
        await withClient(onNode(url, node, 'postgres'), async (c) => {
          await c.query(`alter database ${building} allow_connections false`);
          await c.query('select pg_terminate_backend(pid) from pg_stat_activity where datname = $1', [building]);
          await c.query(`alter database ${building} rename to ${name}`);
        });
      }
    } finally {
      await admin.query('select pg_advisory_unlock(18003)').catch(() => {});
    }
  });
  return name;
}

/**
 * A copy of the v2 layout on every node of the cluster (`layout` false: an empty database with citus
 * and the nodes registered); `drop` removes it from every node.
 */
export async function createCitusScratch(url: string, layout = true): Promise<{ name: string; url: string; drop: () => Promise<void> }> {
  const nodes = await citusNodes(url);
  const template = layout ? await citusTemplate(url, nodes) : undefined;
  const name = `cqs_test_citus_${process.pid}_${Math.random().toString(36).slice(2, 8)}`;
  await createOnNodes(url, nodes, name, template);
  return { name, url: withDatabase(url, name), drop: () => dropOnNodes(url, nodes, name) };
}
