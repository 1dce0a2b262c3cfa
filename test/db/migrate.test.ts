import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { test } from 'node:test';
import { createEmbeddedDb } from '../../src/db/embedded.ts';
import { listMigrations, migrate, recommendedIndexStatements } from '../../src/db/migrate.ts';
import { TOPIC_INDEXES } from '../../src/db/layout.ts';

/** Tables and columns the service reads (its own endpoints and the sibling ones), as the mirror node's v1 schema has them. */
const READ: Record<string, string[]> = {
  entity: ['id', 'type', 'deleted', 'shard', 'realm', 'num', 'evm_address', 'auto_renew_account_id', 'auto_renew_period',
    'created_timestamp', 'expiration_timestamp', 'key', 'max_automatic_token_associations', 'memo', 'ethereum_nonce',
    'obtainer_id', 'permanent_removal', 'proxy_account_id', 'timestamp_range'],
  entity_history: ['id', 'type', 'deleted', 'evm_address', 'key', 'memo', 'obtainer_id', 'timestamp_range'],
  contract: ['id', 'file_id', 'initcode', 'runtime_bytecode'],
  file_data: ['entity_id', 'consensus_timestamp', 'transaction_type', 'file_data'],
  contract_result: ['amount', 'bloom', 'call_result', 'consensus_timestamp', 'contract_id', 'created_contract_ids',
    'error_message', 'failed_initcode', 'function_parameters', 'function_result', 'gas_consumed', 'gas_limit', 'gas_used',
    'payer_account_id', 'sender_id', 'transaction_hash', 'transaction_index', 'transaction_nonce', 'transaction_result'],
  contract_log: ['bloom', 'contract_id', 'consensus_timestamp', 'data', 'index', 'root_contract_id', 'topic0', 'topic1',
    'topic2', 'topic3', 'transaction_hash', 'transaction_index'],
  record_file: ['index', 'hash', 'consensus_start', 'consensus_end', 'gas_used'],
  transaction: ['consensus_timestamp', 'payer_account_id', 'valid_start_ns', 'nonce', 'result', 'type', 'scheduled'],
  transaction_hash: ['consensus_timestamp', 'hash', 'payer_account_id', 'distribution_id'],
  ethereum_transaction: ['access_list', 'call_data', 'call_data_id', 'chain_id', 'consensus_timestamp', 'gas_limit',
    'gas_price', 'hash', 'max_fee_per_gas', 'max_priority_fee_per_gas', 'nonce', 'payer_account_id', 'signature_r',
    'signature_s', 'signature_v', 'type', 'recovery_id', 'to_address', 'value'],
  contract_transaction: ['consensus_timestamp', 'entity_id', 'contract_ids', 'payer_account_id'],
  contract_transaction_hash: ['consensus_timestamp', 'hash', 'payer_account_id', 'entity_id', 'transaction_result'],
  contract_action: ['caller', 'call_depth', 'caller_type', 'call_operation_type', 'call_type', 'consensus_timestamp', 'gas',
    'gas_used', 'index', 'input', 'payer_account_id', 'recipient_account', 'recipient_address', 'recipient_contract',
    'result_data', 'result_data_type', 'value'],
  contract_state: ['contract_id', 'created_timestamp', 'modified_timestamp', 'slot', 'value'],
  contract_state_change: ['consensus_timestamp', 'contract_id', 'payer_account_id', 'slot', 'value_read', 'value_written',
    'migration'],
};

test('migration files are discovered by their four-digit prefix and applied in that order', () => {
  const dir = mkdtempSync(join(tmpdir(), 'cqs-migrations-'));
  try {
    // created in an order that is neither sorted nor reverse-sorted (directory listings follow either on some file
    // systems), with files that are not migrations
    for (const name of ['0002_second.sql', 'README.md', '0010_later.sql', '12_short.sql', '0001_first.sql', '0003_draft.sql.bak']) {
      writeFileSync(join(dir, name), '-- test');
    }
    const found = listMigrations(dir);
    assert.deepEqual(found.map((m) => m.version), ['0001', '0002', '0010']);
    assert.deepEqual(found.map((m) => basename(m.file)), ['0001_first.sql', '0002_second.sql', '0010_later.sql']);
    assert.ok(found.every((m) => m.file.startsWith(dir)));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("the service's migrations are numbered 0001, 0002, ... without gaps, the mirror node v1 schema first", () => {
  const migrations = listMigrations();
  assert.ok(migrations.length >= 2);
  assert.deepEqual(migrations.map((m) => m.version), migrations.map((_, i) => String(i + 1).padStart(4, '0')));
  assert.match(basename(migrations[0]!.file), /^0001_mirror_node_v1_schema\.sql$/);
});

test('migrating an empty embedded database creates every table and column the service reads, once', async () => {
  const { db } = await createEmbeddedDb();
  try {
    const first = await migrate(db);
    assert.deepEqual(first, { applied: listMigrations().map((m) => m.version), foreignSchema: false });
    const rows = await db.query<{ table_name: string; column_name: string }>(
      `select table_name, column_name from information_schema.columns where table_schema = 'public'`,
    );
    const columns = new Map<string, Set<string>>();
    for (const r of rows) columns.set(r.table_name, (columns.get(r.table_name) ?? new Set()).add(r.column_name));
    for (const [table, wanted] of Object.entries(READ)) {
      const present = columns.get(table);
      assert.ok(present, `table ${table} is missing`);
      assert.deepEqual(wanted.filter((c) => !present.has(c)), [], `columns missing from ${table}`);
    }
    const recorded = await db.query<{ version: string }>(`select version from cqs_schema_migration order by version`);
    assert.deepEqual(recorded.map((r) => r.version), first.applied);
    // a second run has nothing left to do
    assert.deepEqual(await migrate(db), { applied: [], foreignSchema: false });
  } finally {
    await db.close();
  }
});

test("a database whose schema someone else made (the importer's) is left untouched", async () => {
  const { db } = await createEmbeddedDb();
  try {
    await db.exec(`create table entity (id bigint primary key)`);
    assert.deepEqual(await migrate(db), { applied: [], foreignSchema: true });
    const [row] = await db.query<{ ours: boolean; result: boolean }>(
      `select to_regclass('public.cqs_schema_migration') is not null as ours, to_regclass('public.contract_result') is not null as result`,
    );
    assert.deepEqual(row, { ours: false, result: false });
  } finally {
    await db.close();
  }
});

test('every recommended index is created by a migration (databases the service owns get them all)', () => {
  const migrated = listMigrations().map((m) => readFileSync(m.file, 'utf8')).join('\n');
  const statements = recommendedIndexStatements();
  assert.ok(statements.length > 0);
  for (const statement of statements) assert.ok(migrated.includes(statement), statement);
});

test('the topic indexes the layout detection looks for are the recommended ones', () => {
  const statements = recommendedIndexStatements();
  for (const name of TOPIC_INDEXES) assert.ok(statements.some((s) => s.startsWith(`create index if not exists ${name} on contract_log `)), name);
});
