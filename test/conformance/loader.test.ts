// Tests of the conformance data loader: value encoders, the default row of every setup key of
// shared/conformance/defaults.json (stored rows must equal default_row.rows_as_stored), a few loader
// rules on crafted data, and loading the setup of every spec file. Database tests run on an in-memory
// PGlite, and also on PostgreSQL (in a scratch database) when TEST_DATABASE_URL is set.
import assert from 'node:assert/strict';
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { PGlite } from '@electric-sql/pglite';
import { btree_gist } from '@electric-sql/pglite/contrib/btree_gist';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';
import JSONbig from 'json-bigint';
import pg from 'pg';
import { createScratchDatabase } from '../support/database.ts';
import {
  aliasBytes,
  base32DecodeLoose,
  clearTables,
  deriveContractTransactions,
  distributionId,
  entityIdFromParts,
  entityKeyBytes,
  hexOrBase64,
  isCurrentRange,
  loadSetup,
  parseEntityId,
  pgArrayLiteral,
  toPgText,
  type SqlExecutor,
} from './loader.ts';

const REPO = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const CONFORMANCE_DIR = process.env.CONFORMANCE_DIR ?? join(REPO, '..', 'shared', 'conformance');
const MIGRATION = join(REPO, 'src', 'db', 'migrations', '0001_mirror_node_v1_schema.sql');
const bigJson = JSONbig({ useNativeBigInt: true });

/** Hex text of an encoder result (which must be bytes). */
function hex(value: unknown): string {
  assert.ok(Buffer.isBuffer(value), `expected bytes, got ${String(value)}`);
  return value.toString('hex');
}

describe('hexOrBase64', () => {
  test('hex strings, with or without 0x, left-padded to 2 digits', () => {
    assert.equal(hex(hexOrBase64('0x0')), '00');
    assert.equal(hex(hexOrBase64('0x5')), '05');
    assert.equal(hex(hexOrBase64('0x1b')), '1b');
    assert.equal(hex(hexOrBase64('AbCd')), 'abcd');
    assert.equal(hex(hexOrBase64('0x0102')), '0102');
  });

  test('odd-length hex drops the trailing nibble', () => {
    assert.equal(hex(hexOrBase64('0x100')), '10');
    assert.equal(hex(hexOrBase64('0x000000000')), '00000000');
    assert.equal(hex(hexOrBase64('abc')), 'ab');
  });

  test('any other string is lenient base64', () => {
    assert.equal(hex(hexOrBase64('')), '');
    assert.equal(hex(hexOrBase64('0x')), 'd3');
    assert.equal(hex(hexOrBase64('hash1')), '85ab21');
    assert.equal(hex(hexOrBase64('hash2')), '85ab21');
    assert.equal(hex(hexOrBase64('AQID')), '010203');
    assert.equal(hex(hexOrBase64('AQI')), '0102'); // padding optional
    assert.equal(hex(hexOrBase64('-_8=')), 'fbff'); // base64url accepted
    assert.equal(hex(hexOrBase64('AQ==AQ==')), '01'); // stops at '='
    assert.equal(hex(hexOrBase64('0X12')), 'd17d76'); // 0X is not a hex prefix
  });

  test('arrays become bytes element by element (Number(), mod 256)', () => {
    assert.equal(hex(hexOrBase64(['0x14'])), '14');
    assert.equal(hex(hexOrBase64([1, 1])), '0101');
    assert.equal(hex(hexOrBase64([])), '');
    assert.equal(hex(hexOrBase64([256, 257, -1, '10'])), '0001ff0a');
  });

  test('null stays null, other values pass through unchanged', () => {
    assert.equal(hexOrBase64(null), null);
    assert.equal(hexOrBase64(undefined), undefined);
    assert.equal(hexOrBase64(1), 1);
    assert.equal(hexOrBase64(12345678901234567890n), 12345678901234567890n);
  });
});

describe('entity keys and aliases', () => {
  test('entity_key: hex as is, arrays raw, null NULL', () => {
    assert.equal(hex(entityKeyBytes([1, 1, 1])), '010101');
    assert.equal(hex(entityKeyBytes('0a0b0c')), '0a0b0c');
    assert.equal(hex(entityKeyBytes('0x0a0b')), ''); // no 0x stripping: Node stops at the first bad pair
    assert.equal(hex(entityKeyBytes('abc')), 'ab');
    assert.equal(entityKeyBytes(null), null);
    assert.equal(entityKeyBytes(undefined), null);
    assert.throws(() => entityKeyBytes(5));
  });

  test('base32 (RFC 4648, loose)', () => {
    assert.equal(base32DecodeLoose('MZXW6YTBOI======').toString(), 'foobar');
    assert.equal(base32DecodeLoose('MZXW6YTBOI').toString(), 'foobar');
    assert.equal(base32DecodeLoose('mzxw6ytboi').toString(), 'foobar');
    assert.equal(base32DecodeLoose('MZXW6YTB0I').toString(), 'foobar'); // 0 -> O
    assert.equal(base32DecodeLoose('MZXW6===').toString(), 'foo');
    assert.equal(hex(base32DecodeLoose('')), '');
    assert.equal(hex(base32DecodeLoose('AE')), '01');
    assert.equal(hex(base32DecodeLoose('1A')), '58'); // 1 -> L (11)
    assert.equal(hex(base32DecodeLoose('8A')), '08'); // 8 -> B (1)
    assert.throws(() => base32DecodeLoose('MZXW6YTBOJ'), /end of base32 data/); // non-zero trailing bits
    assert.throws(() => base32DecodeLoose('MZ!W'), /Invalid base32 character/);
    assert.throws(() => base32DecodeLoose('A'), /end of base32 data/); // dangling character
  });

  test('alias: base32 or NULL', () => {
    assert.equal(
      hex(aliasBytes('CIQAAAH4AY2OFK2FL37TSPYEQGPPUJRP4XTKWHD62HKPQX543DTOFFQ')),
      '12200000fc0634e2ab455eff393f04819efa262fe5e6ab1c7ed1d4f85fbcd8e6e296',
    );
    assert.equal(aliasBytes(null), null);
    assert.throws(() => aliasBytes(5));
  });
});

describe('entity ids', () => {
  test('entity_id_from_parts', () => {
    assert.equal(entityIdFromParts(0, 0, 5001), 5001n);
    assert.equal(entityIdFromParts('0', '0', '5001'), 5001n);
    assert.equal(entityIdFromParts(1, 2, 3), (1n << 54n) | (2n << 38n) | 3n);
    assert.equal(entityIdFromParts(1023, 65535, 2n ** 38n - 1n), -1n); // signed 64-bit
    assert.throws(() => entityIdFromParts(0, 0, 2n ** 38n));
    assert.throws(() => entityIdFromParts(0, 0, '0.0.1'));
    assert.throws(() => entityIdFromParts(0, 0, null));
  });

  test('entity_id_parse', () => {
    assert.equal(parseEntityId('0.0.102'), 102n);
    assert.equal(parseEntityId('0.102'), 102n);
    assert.equal(parseEntityId('1.2.3'), (1n << 54n) | (2n << 38n) | 3n);
    assert.equal(parseEntityId(5001), 5001n);
    assert.equal(parseEntityId('8001'), 8001n);
    assert.equal(parseEntityId(1234567890123456789n), 1234567890123456789n);
    assert.equal(parseEntityId('-1'), -1n);
    assert.equal(parseEntityId('0x0000000000000000000000000000000000001389'), 5001n);
    assert.equal(parseEntityId('0000000000000000000000000000000000001389'), 5001n);
    assert.throws(() => parseEntityId('0x25fe26adc577cc89172e6156c9e24f7b9751b762')); // not long-zero
    assert.throws(() => parseEntityId('abc'));
    assert.throws(() => parseEntityId(null));
    assert.throws(() => parseEntityId(undefined));
    assert.equal(parseEntityId(null, { nullable: true }), null);
    assert.equal(parseEntityId(undefined, { nullable: true }), null);
    assert.equal(parseEntityId('0.0.3', { nullable: true }), 3n);
  });
});

describe('other helpers', () => {
  test('distribution_id: first two bytes, signed big-endian', () => {
    assert.equal(distributionId(Buffer.from([1, 2, 3])), 258);
    assert.equal(distributionId(Buffer.from('9db6', 'hex')), -25162);
    assert.equal(distributionId(Buffer.from([0xff, 0xff])), -1);
    assert.throws(() => distributionId(Buffer.from([1])));
    assert.throws(() => distributionId(null));
  });

  test('PostgreSQL array literals and parameter text', () => {
    assert.equal(pgArrayLiteral([]), '{}');
    assert.equal(pgArrayLiteral([7001]), '{7001}');
    assert.equal(pgArrayLiteral([1, 9007199254740993n]), '{1,9007199254740993}');
    assert.equal(pgArrayLiteral(['a"b\\c', null]), '{"a\\"b\\\\c",NULL}');
    assert.equal(pgArrayLiteral([Buffer.from([1, 2])]), '{"\\\\x0102"}');
    assert.equal(toPgText(null), null);
    assert.equal(toPgText(undefined), null);
    assert.equal(toPgText(false), 'false');
    assert.equal(toPgText(1676540001234390005n), '1676540001234390005');
    assert.equal(toPgText(Buffer.from([0xab, 0x01])), '\\xab01');
    assert.equal(toPgText([]), '{}');
    assert.equal(toPgText([{ a: 1n }]), '{"{\\"a\\":1}"}');
    assert.equal(toPgText({ a: 12345678901234567890n }), '{"a":12345678901234567890}');
  });

  test('current vs historical timestamp ranges', () => {
    assert.equal(isCurrentRange('[0,)'), true);
    assert.equal(isCurrentRange('[5, )'), false);
    assert.equal(isCurrentRange('[1, 2]'), false);
    assert.throws(() => isCurrentRange(null));
  });

  test('contract_transaction derivation', () => {
    const rows = deriveContractTransactions({
      contractresults: [{ consensus_timestamp: 5, contract_id: 7, payer_account_id: 9 }],
      contractlogs: [{ consensus_timestamp: '5', contract_id: 8 }, { consensus_timestamp: 6 }],
      contractStateChanges: [{ consensus_timestamp: 5, contract_id: '7' }],
    });
    const group5 = { consensus_timestamp: '5', payer_account_id: 9, contract_ids: '{7,9,8,102,7,2}' };
    assert.deepEqual(rows, [
      { ...group5, entity_id: 7 },
      { ...group5, entity_id: 9 },
      { ...group5, entity_id: 8 },
      { ...group5, entity_id: 102 },
      { ...group5, entity_id: '7' }, // strict equality: '7' and 7 are different entries
      { ...group5, entity_id: 2 },
      { consensus_timestamp: '6', entity_id: 1, payer_account_id: 102, contract_ids: '{1,102}' },
      { consensus_timestamp: '6', entity_id: 102, payer_account_id: 102, contract_ids: '{1,102}' },
    ]);
  });
});

// ---------------------------------------------------------------------------------------------------
// Database tests
// ---------------------------------------------------------------------------------------------------

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** Plain JSON with integers above 2^53 as strings (json-bigint gives BigInt and null-prototype objects). */
function normalize(value: unknown): Json {
  if (typeof value === 'bigint') {
    return value >= BigInt(Number.MIN_SAFE_INTEGER) && value <= BigInt(Number.MAX_SAFE_INTEGER)
      ? Number(value)
      : value.toString();
  }
  if (Array.isArray(value)) return value.map(normalize);
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, normalize(v)]));
  }
  return value as Json;
}

function canonical(value: Json): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const keys = Object.keys(value).sort();
    return `{${keys.map((k) => `${JSON.stringify(k)}:${canonical(value[k] ?? null)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

function sortRows(rows: Json[]): Json[] {
  return [...rows].sort((a, b) => (canonical(a) < canonical(b) ? -1 : canonical(a) > canonical(b) ? 1 : 0));
}

/** The data tables of schema public (partitioned parents cover their partitions). */
async function dataTables(db: SqlExecutor): Promise<string[]> {
  const { rows } = await db.query(
    `select c.relname as name from pg_class c join pg_namespace n on n.oid = c.relnamespace
      where n.nspname = 'public' and c.relkind in ('r', 'p') and not c.relispartition
        and c.relname not in ('cqs_schema_migration', 'flyway_schema_history')
      order by 1`,
  );
  return rows.map((row: { name: string }) => row.name);
}

/** Rows of a table as stored: bytea as \x-hex text, ranges canonical, arrays as JSON arrays. */
async function readTable(db: SqlExecutor, table: string): Promise<Json[]> {
  const { rows } = await db.query(`select row_to_json(t)::text as j from public."${table}" t`);
  return rows.map((row: { j: string }) => normalize(bigJson.parse(row.j)));
}

interface DefaultRow {
  setup_object_used: Record<string, unknown>;
  rows_as_stored: Record<string, unknown[]>;
}

function defaultRows(): Array<[string, DefaultRow]> {
  const defaults = bigJson.parse(readFileSync(join(CONFORMANCE_DIR, 'defaults.json'), 'utf8')) as {
    setup_keys: Record<string, { default_row?: DefaultRow }>;
  };
  return Object.entries(defaults.setup_keys).flatMap(([key, spec]) =>
    spec.default_row ? [[key, spec.default_row] as [string, DefaultRow]] : [],
  );
}

function specFiles(): string[] {
  const files: string[] = [];
  const walk = (path: string): void => {
    if (statSync(path).isDirectory()) {
      for (const entry of readdirSync(path).sort()) walk(join(path, entry));
    } else if (path.endsWith('.json') && !path.endsWith('responseHeaders.json')) {
      files.push(path);
    }
  };
  for (const folder of ['specs', 'specs-extra']) {
    const path = join(CONFORMANCE_DIR, folder);
    if (existsSync(path)) walk(path);
  }
  return files;
}

const haveCorpus = existsSync(join(CONFORMANCE_DIR, 'defaults.json'));

/** The database test suite, run on one backend. */
function databaseSuite(name: string, open: () => Promise<{ db: SqlExecutor; close: () => Promise<void> }>): void {
  describe(name, { skip: !haveCorpus && 'conformance corpus not found' }, () => {
    let db: SqlExecutor;
    let close: () => Promise<void> = async () => {};
    let tables: string[] = [];

    before(async () => {
      ({ db, close } = await open());
      tables = await dataTables(db);
    });
    after(async () => close());

    async function load(setup: Record<string, unknown>): Promise<void> {
      await clearTables(db);
      await loadSetup(db, setup);
    }

    for (const [key, defaultRow] of haveCorpus ? defaultRows() : []) {
      test(`default row of ${key} is stored as in defaults.json`, async () => {
        await load({ [key]: [defaultRow.setup_object_used] });
        for (const table of tables) {
          const expected = (defaultRow.rows_as_stored[table] ?? []).map(normalize);
          assert.deepStrictEqual(sortRows(await readTable(db, table)), sortRows(expected), `table ${table}`);
        }
      });
    }

    test('entities and contracts: history rows, contract rows, encodings', async () => {
      await load({
        contracts: [
          { num: '5001', timestamp_range: '[987654000123456, 997654000123456]', key: [1, 1, 1] },
          {
            num: '5001',
            timestamp_range: '[997654000123457,)',
            evm_address: '62cf9068fed962cf9068fed962cf9068fed9dddd',
            file_id: '5002',
            runtime_bytecode: [1, 2],
            id: 1,
          },
        ],
        entities: [{ num: 9, alias: 'aebagbaf', type: 'FILE', timestamp_range: '[5,10)' }],
        accounts: [{ num: 7, realm: 1, evm_address: '0xfbb9a1be370150759408cd7af48e9eda2b8ead57' }],
      });
      assert.deepStrictEqual(
        normalize((await db.query(`select id::text, timestamp_range::text, encode(key, 'hex') as key from entity_history order by entity_history.id`)).rows),
        [
          { id: '9', timestamp_range: '[5,10)', key: null },
          { id: '5001', timestamp_range: '[987654000123456,997654000123457)', key: '010101' },
        ],
      );
      assert.deepStrictEqual(
        normalize((await db.query(`select id::text, type::text, encode(evm_address, 'hex') as evm from entity order by entity.id`)).rows),
        [
          { id: '5001', type: 'CONTRACT', evm: '62cf9068fed962cf9068fed962cf9068fed9dddd' },
          { id: String((1n << 38n) | 7n), type: 'ACCOUNT', evm: 'fbb9a1be370150759408cd7af48e9eda2b8ead57' },
        ],
      );
      assert.deepStrictEqual(
        normalize((await db.query(`select id::text, file_id::text, encode(runtime_bytecode, 'hex') as code from contract`)).rows),
        [{ id: '1', file_id: '5002', code: '0102' }], // a raw 'id' overrides the contract row's id only
      );
      const alias = (await db.query(`select encode(alias, 'hex') as alias from entity_history where id = 9`)).rows;
      assert.deepStrictEqual(normalize(alias), [{ alias: '0102030405' }]);
    });

    test('transactions, transaction hashes, file data, record files, big integers', async () => {
      await load({
        transactions: [
          {
            consensus_timestamp: 1676540001234390005n,
            payerAccountId: '0.0.5000',
            nodeAccountId: '0.0.3',
            entity_id: '0.0.9',
            valid_start_ns: '1',
            transaction_hash: 'hash1',
            type: '7',
            name: 'ignored',
          },
          { consensus_timestamp: 10, payerAccountId: 8001, valid_start_timestamp: 3, transaction_hash: 'hash2', charged_tx_fee: 0 },
        ],
        transactionhashes: [{ consensus_timestamp: 11n, hash: '0x9db6', payer_account_id: 102 }],
        filedata: [
          { consensus_timestamp: '1', entity_id: 111, file_data: '0a0b' },
          { consensus_timestamp: '2', entity_id: '111', file_data: '0a0b' },
          { consensus_timestamp: '3', entity_id: 112, file_data: [1, 2], _description: 'ignored' },
        ],
        recordFiles: [{ consensus_end: 20, bytes: [1, 2, 3], size: 99, entity_id: '0.0.1' }, { consensus_end: 21, bytes: null }],
      });
      assert.deepStrictEqual(
        normalize((await db.query(
          `select consensus_timestamp::text as ts, valid_start_ns::text as vs, payer_account_id::text as payer,
                  node_account_id::text as node, entity_id::text as entity, type, encode(transaction_hash, 'hex') as hash
             from transaction order by consensus_timestamp`,
        )).rows),
        [
          { ts: '10', vs: '3', payer: '8001', node: null, entity: null, type: 14, hash: '85ab21' },
          { ts: '1676540001234390005', vs: '1676540001234390004', payer: '5000', node: '3', entity: '9', type: 7, hash: '85ab21' },
        ],
      );
      assert.deepStrictEqual(
        normalize((await db.query(
          `select consensus_timestamp::text as ts, encode(hash, 'hex') as hash, payer_account_id::text as payer, distribution_id
             from transaction_hash order by consensus_timestamp`,
        )).rows),
        [
          { ts: '10', hash: '85ab21', payer: '8001', distribution_id: -31317 },
          { ts: '11', hash: '9db6', payer: '102', distribution_id: -25162 },
          { ts: '1676540001234390005', hash: '85ab21', payer: '5000', distribution_id: -31317 },
        ],
      );
      assert.deepStrictEqual(
        normalize((await db.query(
          `select consensus_timestamp::text as ts, entity_id::text as account, amount::text from crypto_transfer order by amount`,
        )).rows),
        [
          { ts: '1676540001234390005', account: '5000', amount: '-3' },
          { ts: '1676540001234390005', account: '98', amount: '1' },
          { ts: '1676540001234390005', account: '3', amount: '2' },
        ], // charged_tx_fee 0: no default transfers
      );
      assert.deepStrictEqual(
        normalize((await db.query(`select consensus_timestamp::text as ts, encode(file_data, 'hex') as data, transaction_type from file_data order by 1`)).rows),
        [
          { ts: '1', data: '0a0b', transaction_type: 17 },
          { ts: '2', data: '30613062', transaction_type: 17 },
          { ts: '3', data: '0102', transaction_type: 17 },
        ],
      );
      assert.deepStrictEqual(
        normalize((await db.query(`select consensus_end::text as ce, size from record_file order by 1`)).rows),
        [{ ce: '20', size: 3 }, { ce: '21', size: 6 }],
      );
    });

    test('contract keys: merged columns, ignored keys, strict NULLs, derived rows', async () => {
      await load({
        contractresults: [
          { consensus_timestamp: '100', contract_id: 5001, payer_account_id: 5001, evmAddress: 'x', created_contract_ids: [5001, 5002], gas_consumed: 9223372036854775805n },
        ],
        contractlogs: [{ consensus_timestamp: '100', contract_id: 5001, index: 0, topic0: [10], topic1: null, topic2: null, topic3: null }],
        contractStateChanges: [{ consensus_timestamp: '100', contract_id: 5002, slot: '', value_written: null }],
        contractStates: [{ contract_id: 5001, slot: '01', value: '' }],
        ethereumtransactions: [{ consensus_timestamp: 100, _value_description: 'ignored', value: '0x100' }],
        contractactions: [{ consensus_timestamp: '100', caller_type: 'ACCOUNT', recipient_address: [1] }],
      });
      assert.deepStrictEqual(
        normalize((await db.query(`select created_contract_ids::text as ids, gas_consumed::text as gas from contract_result`)).rows),
        [{ ids: '{5001,5002}', gas: '9223372036854775805' }],
      );
      assert.deepStrictEqual(
        normalize((await db.query(`select encode(topic0, 'hex') as t0, topic1, transaction_index from contract_log`)).rows),
        [{ t0: '0a', topic1: null, transaction_index: 0 }],
      );
      assert.deepStrictEqual(
        normalize((await db.query(`select encode(slot, 'hex') as slot, value_written, migration from contract_state_change`)).rows),
        [{ slot: '', value_written: null, migration: false }],
      );
      assert.deepStrictEqual(
        normalize((await db.query(`select encode(value, 'hex') as value, created_timestamp::text as created from contract_state`)).rows),
        [{ value: '', created: '1664365660048675000' }],
      );
      assert.deepStrictEqual(
        normalize((await db.query(`select encode(value, 'hex') as value, encode(data, 'hex') as data from ethereum_transaction`)).rows),
        [{ value: '10', data: '00000000' }],
      );
      assert.deepStrictEqual(
        normalize((await db.query(`select caller_type::text, encode(recipient_address, 'hex') as ra from contract_action`)).rows),
        [{ caller_type: 'ACCOUNT', ra: '01' }],
      );
      assert.deepStrictEqual(
        normalize((await db.query(
          `select entity_id::text as id, payer_account_id::text as payer, contract_ids::text as ids
             from contract_transaction order by entity_id`,
        )).rows),
        [
          { id: '2', payer: '5001', ids: '{5001,102,5002,2}' },
          { id: '102', payer: '5001', ids: '{5001,102,5002,2}' },
          { id: '5001', payer: '5001', ids: '{5001,102,5002,2}' },
          { id: '5002', payer: '5001', ids: '{5001,102,5002,2}' },
        ], // the log's default payer 102 and the state change's default payer 2 join the group
      );
    });

    test('unknown keys are ignored, unsupported loader keys and bad rows throw', async () => {
      await load({ config: { response: { limit: { max: 4 } } }, features: { fakeTime: 1 }, sql: {}, somethingElse: [{}] });
      await assert.rejects(load({ tokens: [{ token_id: '0.0.1' }] }), /setup.tokens is not supported/);
      await assert.rejects(load({ contractlogs: [{ no_such_column: 1 }] }), /setup.contractlogs\[0\]: column "no_such_column"/);
      await assert.rejects(load({ transactions: [{ consensus_timestamp: 1 }] }), /setup.transactions\[0\]: entity id is required/);
      await assert.rejects(load({ filedata: [{ consensus_timestamp: 1, entity_id: 1 }] }), /file_data must be/);
    });

    test('clearTables empties data tables and keeps migration bookkeeping', async () => {
      await db.query('create table if not exists cqs_schema_migration (version text primary key)');
      await db.query(`insert into cqs_schema_migration values ('9999') on conflict do nothing`);
      await load({ transactionhashes: [{ consensus_timestamp: 1, hash: '0x0102', payer_account_id: 1 }] });
      await clearTables(db);
      assert.deepStrictEqual((await db.query('select count(*)::int as n from transaction_hash')).rows, [{ n: 0 }]);
      assert.deepStrictEqual((await db.query(`select version from cqs_schema_migration where version = '9999'`)).rows, [{ version: '9999' }]);
      await db.query(`delete from cqs_schema_migration where version = '9999'`);
    });

    test('the setup of every spec file loads', async () => {
      const files = specFiles();
      assert.ok(files.length > 0, 'no spec files found');
      const failures: string[] = [];
      for (const file of files) {
        const spec = bigJson.parse(readFileSync(file, 'utf8')) as { setup?: Record<string, unknown> };
        try {
          await load(spec.setup ?? {});
        } catch (err) {
          failures.push(`${file}: ${(err as Error).message}`);
        }
      }
      assert.deepStrictEqual(failures, []);
    });
  });
}

databaseSuite('loader on PGlite', async () => {
  const db = new PGlite({ extensions: { btree_gist, pg_trgm } });
  await db.exec(readFileSync(MIGRATION, 'utf8'));
  return { db, close: () => db.close() };
});

const testDatabaseUrl = process.env.TEST_DATABASE_URL;
if (testDatabaseUrl) {
  databaseSuite('loader on PostgreSQL (TEST_DATABASE_URL)', async () => {
    const scratch = await createScratchDatabase(testDatabaseUrl, 'cqs_loader_check');
    const client = new pg.Client({ connectionString: scratch.url });
    await client.connect();
    await client.query(readFileSync(MIGRATION, 'utf8'));
    return {
      db: client,
      async close() {
        await client.end();
        await scratch.drop();
      },
    };
  });
}
