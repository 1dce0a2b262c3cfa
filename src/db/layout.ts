/**
 * Which mirror node layout a database holds, found at start: the importer's v1 schema, its v2
 * (Citus) layout, or this service's own migrations (v1-shaped); and whether Citus is installed.
 * The plan mode of the sessions and the shape of a few statements follow it (docs/scaling.md).
 */
import type { Config } from '../config/config.ts';
import type { Db, Session } from './db.ts';
import { type PostgresOptions, createPostgresDb, postgresOptionsFromConfig } from './postgres.ts';

export interface DbLayout {
  /** 'own': made by this service's migrations; 'none': no mirror node schema yet. */
  schema: 'v1' | 'v2' | 'own' | 'none';
  /** The citus extension is installed: a coordinator. */
  citus: boolean;
  /** contract_result is a partitioned table (v2's monthly partitions). */
  partitioned: boolean;
  /**
   * The recommended indexes on the log topics are there (src/db/recommended/indexes.sql): a
   * contract's topic search is then planned for its values, which picks a topic index for a rare
   * topic; without them the contract's own index is the only good plan, and a cached one.
   */
  topicIndexes: boolean;
}

export interface LayoutRow {
  ours: boolean;
  entity: boolean;
  citus: boolean;
  partitioned: boolean;
  record_file_node_key: boolean;
  topic_indexes: boolean;
}

/** The recommended indexes a contract's topic search needs (src/db/recommended/indexes.sql), by name. */
export const TOPIC_INDEXES = [
  'contract_log__topic0_timestamp',
  'contract_log__topic1_topic0_timestamp',
  'contract_log__topic2_topic0_timestamp',
  'contract_log__topic3_topic0_timestamp',
  'contract_log__contract_id_topic0_timestamp',
] as const;

/** The catalog facts the layout is decided on, in one statement without parameters. */
export const LAYOUT_SQL = `select
  to_regclass('public.cqs_schema_migration') is not null as ours,
  to_regclass('public.entity') is not null as entity,
  exists (select 1 from pg_extension where extname = 'citus') as citus,
  coalesce((select relkind = 'p' from pg_class where oid = to_regclass('public.contract_result')), false) as partitioned,
  exists (select 1 from pg_constraint k join pg_attribute a on a.attrelid = k.conrelid and a.attnum = any(k.conkey)
          where k.conrelid = to_regclass('public.record_file') and k.contype = 'p' and a.attname = 'node_id') as record_file_node_key,
  (select count(*) = ${TOPIC_INDEXES.length} from pg_index i join pg_class c on c.oid = i.indexrelid
    where i.indrelid = to_regclass('public.contract_log') and i.indisvalid
      and c.relname in (${TOPIC_INDEXES.map((name) => `'${name}'`).join(', ')})) as topic_indexes`;

export function layoutOf(row: LayoutRow): DbLayout {
  const v2 = row.citus || row.partitioned || row.record_file_node_key;
  const schema = !row.entity ? 'none' : row.ours ? 'own' : v2 ? 'v2' : 'v1';
  return { schema, citus: row.citus, partitioned: row.partitioned, topicIndexes: row.topic_indexes };
}

export async function detectLayout(db: Session): Promise<DbLayout> {
  const [row] = await db.query<LayoutRow>(LAYOUT_SQL);
  return layoutOf(row!);
}

/**
 * The statements are written Citus-safe (docs/scaling.md) on a Citus coordinator and on the v2
 * layout: every distributed table filtered on its distribution column by a value or joined to a
 * co-located table on it, and record_file and file_data read in statements of their own.
 */
export function citusSafe(layout: DbLayout | undefined): boolean {
  return layout !== undefined && (layout.citus || layout.schema === 'v2');
}

/**
 * The plan cache mode for the layout. v1 forces generic plans (src/db/postgres.ts). Citus cannot
 * execute a generic plan of anything but a fast-path statement ("could not create distributed plan"),
 * and with `auto` it keeps fast-path statements generic and plans the others per execution. The v2
 * layout on plain PostgreSQL gets the same (measured in docs/scaling.md).
 */
export function planCacheModeFor(layout: DbLayout): 'force_generic_plan' | 'auto' {
  return citusSafe(layout) ? 'auto' : 'force_generic_plan';
}

const layouts = new WeakMap<Db, DbLayout>();

/**
 * The layout found when `db` was opened (undefined: embedded, or opened without detection: v1 shapes
 * on this service's own schema, whose migrations create the recommended indexes).
 */
export function dbLayout(db: Db): DbLayout | undefined {
  return layouts.get(db);
}

export function setDbLayout(db: Db, layout: DbLayout): Db {
  layouts.set(db, layout);
  return db;
}

/** The layout, read on one short-lived connection. */
export async function probeLayout(config: Config, options: PostgresOptions = postgresOptionsFromConfig(config)): Promise<DbLayout> {
  const probe = createPostgresDb(config, { ...options, maxConnections: 1 });
  try {
    return await detectLayout(probe);
  } finally {
    await probe.close();
  }
}

/** A PostgreSQL pool whose sessions plan as the database's layout needs (probeLayout first). */
export async function openLayoutDb(config: Config, options: PostgresOptions = postgresOptionsFromConfig(config)): Promise<Db> {
  const layout = await probeLayout(config, options);
  return setDbLayout(createPostgresDb(config, { ...options, planCacheMode: planCacheModeFor(layout) }), layout);
}

/** True where a contract's topic search has the recommended topic indexes (this service's own schema has them). */
export const hasTopicIndexes = (layout: DbLayout | undefined): boolean => layout === undefined || layout.topicIndexes;

const SCHEMAS: Record<DbLayout['schema'], string> = {
  v1: "the importer's v1 schema",
  v2: "the importer's v2 (Citus) layout",
  own: "this service's own schema (v1-shaped)",
  none: 'no mirror node schema',
};

/** One line for logs and `migrate`: "the importer's v2 (Citus) layout, partitioned, Citus not installed". */
export function describeLayout(layout: DbLayout): string {
  const parts = [SCHEMAS[layout.schema]];
  if (layout.partitioned) parts.push('contract_result partitioned');
  parts.push(layout.citus ? 'Citus installed' : 'Citus not installed');
  parts.push(layout.topicIndexes ? 'with the recommended topic indexes' : 'without the recommended topic indexes');
  return parts.join(', ');
}
