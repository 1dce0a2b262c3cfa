// The database side of the loader: emptying the tables, reading column types, inserting one row.
//
// All values are sent as text parameters (`String(v)`, bytea as '\x..' hex text, arrays as PostgreSQL
// array literals) and cast in SQL with `$n::text::<column type>`, which runs the column type's input
// function exactly like an untyped text parameter would. The explicit cast keeps PGlite's client-side
// parameter serializers (which reject strings for bytea, arrays, ...) out of the way, so the same code
// works on pg.Pool / pg.Client and on a bare PGlite instance.
import { type Row, hexOrBase64, toPgText } from './values.ts';

/** Anything with a pg-style `query`; satisfied by pg.Pool, pg.Client and PGlite. */
export interface SqlExecutor {
  query(text: string, values?: unknown[]): Promise<{ rows: any[] }>;
}

/** Tables that hold migration bookkeeping, not data: never emptied. */
const BOOKKEEPING_TABLES = ['cqs_schema_migration', 'flyway_schema_history'];

/**
 * Empties every table of schema public except the migration bookkeeping tables
 * (cqs_schema_migration, flyway_schema_history), in one statement and one transaction: a DO block
 * deleting all rows of every top-level table (partitioned parents cover their partitions). This is
 * the reference's "delete all rows from every table"; DELETE leaves the same state as TRUNCATE but is
 * much faster on these tiny tables (about 7 ms against 350 ms on PostgreSQL 15, 50 ms against 200 ms
 * on PGlite, for the ~60 tables of the v1 schema).
 */
export async function clearTables(db: SqlExecutor): Promise<void> {
  const excluded = BOOKKEEPING_TABLES.map((name) => `'${name}'`).join(', ');
  await db.query(`do $clear$
declare
  target record;
begin
  for target in
    select format('%I.%I', n.nspname, c.relname) as name
      from pg_class c join pg_namespace n on n.oid = c.relnamespace
     where n.nspname = 'public' and c.relkind in ('r', 'p') and not c.relispartition
       and c.relname not in (${excluded})
  loop
    execute 'delete from ' || target.name;
  end loop;
end
$clear$`);
}

/** Column name -> type name (without typmod, so assignment still checks e.g. varchar lengths). */
type ColumnTypes = Map<string, Map<string, string>>;

const columnTypesCache = new WeakMap<SqlExecutor, Promise<ColumnTypes>>();

export function columnTypes(db: SqlExecutor): Promise<ColumnTypes> {
  let cached = columnTypesCache.get(db);
  if (cached === undefined) {
    cached = readColumnTypes(db);
    columnTypesCache.set(db, cached);
    cached.catch(() => columnTypesCache.delete(db));
  }
  return cached;
}

async function readColumnTypes(db: SqlExecutor): Promise<ColumnTypes> {
  const { rows } = await db.query(
    `select c.relname as table_name, a.attname as column_name, a.atttypid::regtype::text as type_name
       from pg_attribute a
       join pg_class c on c.oid = a.attrelid
       join pg_namespace n on n.oid = c.relnamespace
      where n.nspname = 'public' and c.relkind in ('r', 'p') and a.attnum > 0 and not a.attisdropped`,
  );
  const types: ColumnTypes = new Map();
  for (const row of rows as { table_name: string; column_name: string; type_name: string }[]) {
    let table = types.get(row.table_name);
    if (table === undefined) types.set(row.table_name, (table = new Map()));
    table.set(row.column_name, row.type_name);
  }
  return types;
}

const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/;

export interface LoadContext {
  db: SqlExecutor;
  types: ColumnTypes;
}

/**
 * `insert into <table> (<columns>) values (...)` with one text parameter per column; a column whose
 * value is missing from the row is inserted as NULL. Column names come from the loader or from spec
 * keys (folded to lower case like unquoted SQL identifiers).
 */
export async function insertRow(ctx: LoadContext, table: string, columns: readonly string[], row: Row): Promise<void> {
  const tableTypes = ctx.types.get(table);
  if (tableTypes === undefined) throw new Error(`relation "${table}" does not exist`);
  const names: string[] = [];
  const placeholders: string[] = [];
  columns.forEach((column, i) => {
    if (!IDENTIFIER.test(column)) throw new Error(`invalid column name ${JSON.stringify(column)} for ${table}`);
    const name = column.toLowerCase();
    const type = tableTypes.get(name);
    if (type === undefined) throw new Error(`column "${name}" of relation "${table}" does not exist`);
    names.push(`"${name}"`);
    placeholders.push(`$${i + 1}::text::${type}`);
  });
  const values = columns.map((column) => toPgText(row[column]));
  await ctx.db.query(`insert into public.${table} (${names.join(', ')}) values (${placeholders.join(', ')})`, values);
}

/** Applies hex_or_base64 to the given fields of a row (in place). */
export function convertBytea(row: Row, fields: readonly string[]): void {
  for (const field of fields) row[field] = hexOrBase64(row[field]);
}
