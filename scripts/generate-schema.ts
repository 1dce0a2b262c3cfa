// Generates src/db/migrations/0001_mirror_node_v1_schema.sql from the catalog extract of the mirror
// node v1 schema (the TSV files in shared/reference/schema, see README.md there).
//
//   npx tsx scripts/generate-schema.ts [schemaDir]
//
// schemaDir defaults to ../shared/reference/schema relative to the repository root.
import { readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const schemaDir = resolve(process.argv[2] ?? join(repoRoot, '..', 'shared', 'reference', 'schema'));
const outFile = join(repoRoot, 'src', 'db', 'migrations', '0001_mirror_node_v1_schema.sql');

/** Reads a TSV file with a header line into records keyed by the header names. */
function readTsv(name: string): Record<string, string>[] {
  const [header, ...lines] = readFileSync(join(schemaDir, name), 'utf8').split('\n').filter((l) => l !== '');
  const keys = header!.split('\t');
  return lines.map((line) => {
    const values = line.split('\t');
    return Object.fromEntries(keys.map((k, i) => [k, values[i] ?? '']));
  });
}

/** Groups rows by a key, keeping first-seen order. */
function groupBy<T>(rows: T[], key: (row: T) => string): Map<string, T[]> {
  const groups = new Map<string, T[]>();
  for (const row of rows) {
    const k = key(row);
    groups.set(k, [...(groups.get(k) ?? []), row]);
  }
  return groups;
}

const quote = (s: string) => `'${s.replaceAll("'", "''")}'`;

const columns = readTsv('tables.tsv');
const indexes = readTsv('indexes.tsv');
const constraints = readTsv('constraints.tsv');
const types = readTsv('types.tsv');
const partitions = new Map(readTsv('partitions.tsv').map((p) => [p.table!, p]));

const out: string[] = [
  '-- GENERATED FILE, DO NOT EDIT. Produced by scripts/generate-schema.ts from',
  '-- shared/reference/schema/{types,tables,constraints,partitions,indexes}.tsv: the catalog of the',
  '-- Hedera mirror node v1 schema (all importer v1 Flyway SQL migrations applied to PostgreSQL 15).',
  '-- Meant to run once on an empty database, in a single transaction.',
  '',
  'create extension if not exists btree_gist;',
  'create extension if not exists pg_trgm;',
  '',
];

// Enums (labels in position order) and domains.
for (const [name, rows] of groupBy(types, (t) => t.type_name!)) {
  const sorted = rows.sort((a, b) => Number(a.position) - Number(b.position));
  if (sorted[0]!.kind === 'enum') {
    out.push(`create type public.${name} as enum (${sorted.map((r) => quote(r.value_or_base_type!)).join(', ')});`);
  } else {
    out.push(`create domain public.${name} as ${sorted[0]!.value_or_base_type};`);
  }
}

// Tables: columns in ordinal order, primary key constraint, partitioning and partitions.
const pkeys = new Map(constraints.filter((c) => c.constraint_type === 'PRIMARY KEY').map((c) => [c.table!, c]));
let partitionCount = 0;
for (const [table, cols] of groupBy(columns, (c) => c.table!)) {
  const lines = cols
    .sort((a, b) => Number(a.ordinal) - Number(b.ordinal))
    .map((c) => {
      let line = `  ${c.column} ${c.data_type}`;
      if (c.default) line += ` default ${c.default}`;
      if (c.nullable === 'NO') line += ' not null';
      return line;
    });
  const pk = pkeys.get(table);
  if (pk) lines.push(`  constraint ${pk.constraint_name} ${pk.definition}`);
  const partitioned = partitions.get(table);
  out.push('', `create table public.${table} (`, lines.join(',\n'), partitioned ? `) partition by ${partitioned.partition_key};` : ');');
  for (const spec of partitioned?.partitions!.split(';') ?? []) {
    const [, child, bound] = /^\s*(\S+)\s+(.*?)\s*$/.exec(spec)!;
    out.push(`create table public.${child} partition of public.${table} ${bound};`);
    partitionCount++;
  }
}

// Indexes, except those backing a primary key of the same name. `ON ONLY` (parent-only index of a
// partitioned table) becomes a plain `ON` so that the partitions get the index as well.
const pkNames = new Set(constraints.map((c) => `${c.table}.${c.constraint_name}`));
const ownIndexes = indexes.filter((i) => !pkNames.has(`${i.table}.${i.index_name}`));
out.push('');
for (const index of ownIndexes) out.push(`${index.index_definition!.replace(' ON ONLY ', ' ON ')};`);

mkdirSync(dirname(outFile), { recursive: true });
writeFileSync(outFile, out.join('\n') + '\n');
console.log(
  `wrote ${outFile}: ${new Set(types.map((t) => t.type_name)).size} types, ${new Set(columns.map((c) => c.table)).size} tables, ` +
    `${partitionCount} partitions, ${pkeys.size} primary keys, ${ownIndexes.length} indexes`,
);
