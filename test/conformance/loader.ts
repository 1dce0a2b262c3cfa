// Conformance test data loader: turns the `setup` object of a reference spec file into database rows,
// exactly as the reference REST test loader does (see shared/conformance/defaults.json, which is the
// authoritative description of every setup key, default value, value encoding and derived row).
//
// All values are sent as text parameters (`String(v)`, bytea as '\x..' hex text, arrays as PostgreSQL
// array literals) and cast in SQL with `$n::text::<column type>`, which runs the column type's input
// function exactly like an untyped text parameter would. The explicit cast keeps PGlite's client-side
// parameter serializers (which reject strings for bytea, arrays, ...) out of the way, so the same code
// works on pg.Pool / pg.Client and on a bare PGlite instance.

/** Anything with a pg-style `query`; satisfied by pg.Pool, pg.Client and PGlite. */
export interface SqlExecutor {
  query(text: string, values?: unknown[]): Promise<{ rows: any[] }>;
}

type Row = Record<string, unknown>;

// ---------------------------------------------------------------------------------------------------
// Value encodings (exported for unit tests)
// ---------------------------------------------------------------------------------------------------

const HEX_STRING = /^(0x)?[0-9A-Fa-f]+$/;

/**
 * `hex_or_base64` (the reference's valueToBuffer), used for bytea columns:
 * - hex string (optional one leading '0x') -> bytes, left-padded to 2 digits; an odd trailing nibble is
 *   dropped (Node's hex decoder): '0x0' -> 00, '0x100' -> 10, 'abc' -> ab;
 * - any other string -> Node's lenient base64 decoder ('' -> empty, '0x' -> d3, 'hash1' -> 85ab21);
 * - array -> bytes element by element (Number(), mod 256);
 * - null stays null; anything else (e.g. a number) is returned unchanged, so PostgreSQL's bytea
 *   input parses its text (1 -> '1' = \x31).
 */
export function hexOrBase64(value: unknown): unknown {
  if (value === null) return null;
  if (typeof value === 'string') {
    if (HEX_STRING.test(value)) {
      const digits = value.startsWith('0x') ? value.slice(2) : value;
      return Buffer.from(digits.padStart(2, '0'), 'hex');
    }
    return Buffer.from(value, 'base64');
  }
  if (Array.isArray(value)) return bytesFromArray(value);
  return value;
}

/** Byte array from a JSON array with Buffer.from semantics (each element through Number(), mod 256). */
export function bytesFromArray(values: readonly unknown[]): Buffer {
  return Buffer.from(values as number[]);
}

/**
 * `entity_key`: a string is hex-decoded as is (no '0x' stripping, no base64 fallback; Node stops at
 * the first non-hex pair), an array becomes those raw bytes, null/undefined stay NULL.
 */
export function entityKeyBytes(value: unknown): Buffer | null {
  if (value === null || value === undefined) return null;
  if (typeof value === 'string') return Buffer.from(value, 'hex');
  if (Array.isArray(value)) return bytesFromArray(value);
  throw new TypeError(`entity key must be a hex string or a byte array, got ${describe(value)}`);
}

const BASE32_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';

/**
 * RFC 4648 base32 decoding in the `rfc4648` package's loose mode: lower case accepted, 0 -> O,
 * 1 -> L, 8 -> B, padding optional; invalid characters and non-zero trailing bits throw.
 */
export function base32DecodeLoose(text: string): Buffer {
  const normalized = text.toUpperCase().replace(/0/g, 'O').replace(/1/g, 'L').replace(/8/g, 'B');
  let end = normalized.length;
  while (end > 0 && normalized[end - 1] === '=') end--;
  const out = Buffer.alloc(Math.floor((end * 5) / 8));
  let bits = 0;
  let buffer = 0;
  let written = 0;
  for (let i = 0; i < end; i++) {
    const char = normalized.charAt(i);
    const value = BASE32_ALPHABET.indexOf(char);
    if (value < 0) throw new SyntaxError(`Invalid base32 character ${JSON.stringify(char)}`);
    buffer = (buffer << 5) | value;
    bits += 5;
    if (bits >= 8) {
      bits -= 8;
      out[written++] = 0xff & (buffer >> bits);
    }
  }
  if (bits >= 5 || (0xff & (buffer << (8 - bits))) !== 0) throw new SyntaxError('Unexpected end of base32 data');
  return out;
}

/** `alias` column: base32 (loose) decoded to bytes; null/undefined stay NULL. */
export function aliasBytes(value: unknown): Buffer | null {
  if (value === null || value === undefined) return null;
  if (typeof value !== 'string') throw new TypeError(`alias must be a base32 string, got ${describe(value)}`);
  return base32DecodeLoose(value);
}

const SHARD_BITS = 10n;
const REALM_BITS = 16n;
const NUM_BITS = 38n;
const MAX_SHARD = (1n << SHARD_BITS) - 1n;
const MAX_REALM = (1n << REALM_BITS) - 1n;
const MAX_NUM = (1n << NUM_BITS) - 1n;
const INT64_MIN = -(1n << 63n);
const INT64_MAX = (1n << 63n) - 1n;

/** BigInt(value) for numbers, integer strings, bigints and booleans (BigInt's own errors otherwise). */
export function toBigInt(value: unknown, what = 'value'): bigint {
  if (typeof value === 'bigint') return value;
  if (typeof value === 'number' || typeof value === 'string' || typeof value === 'boolean') {
    try {
      return BigInt(value);
    } catch (err) {
      throw new RangeError(`${what}: ${describe(value)} is not an integer`, { cause: err });
    }
  }
  throw new TypeError(`${what}: ${describe(value)} is not an integer`);
}

/** `entity_id_from_parts`: (shard << 54) | (realm << 38) | num as a signed 64-bit integer. */
export function entityIdFromParts(shard: unknown, realm: unknown, num: unknown): bigint {
  const s = toBigInt(shard, 'shard');
  const r = toBigInt(realm, 'realm');
  const n = toBigInt(num, 'num');
  if (s < 0n || s > MAX_SHARD || r < 0n || r > MAX_REALM || n < 0n || n > MAX_NUM) {
    throw new RangeError(`invalid entity id ${s}.${r}.${n}`);
  }
  return BigInt.asIntN(64, (s << (REALM_BITS + NUM_BITS)) | (r << NUM_BITS) | n);
}

const DOTTED_ID = /^\d+(\.\d+){1,2}$/;
const ENCODED_ID = /^-?\d{1,19}$/;
const EVM_ADDRESS = /^(0x)?[0-9A-Fa-f]{40}$/;

/**
 * `entity_id_parse` (the reference's EntityId.parse): 'shard.realm.num', 'realm.num' (shard 0), an
 * encoded id (integer or integer string, may be negative) or a 40-hex EVM address (long-zero form:
 * 4 bytes shard, 8 bytes realm, 8 bytes num). Returns the encoded id; null/undefined give null when
 * `nullable`, otherwise throw.
 */
export function parseEntityId(value: unknown): bigint;
export function parseEntityId(value: unknown, options: { nullable: boolean }): bigint | null;
export function parseEntityId(value: unknown, options: { nullable?: boolean } = {}): bigint | null {
  if (value === null || value === undefined) {
    if (options.nullable) return null;
    throw new TypeError(`entity id is required, got ${describe(value)}`);
  }
  if (typeof value !== 'string' && typeof value !== 'number' && typeof value !== 'bigint') {
    throw new TypeError(`invalid entity id ${describe(value)}`);
  }
  const text = String(value);
  if (DOTTED_ID.test(text)) {
    const parts = text.split('.');
    if (parts.length === 2) parts.unshift('0');
    return entityIdFromParts(parts[0], parts[1], parts[2]);
  }
  if (ENCODED_ID.test(text)) {
    const id = BigInt(text);
    if (id < INT64_MIN || id > INT64_MAX) throw new RangeError(`invalid entity id ${text}`);
    return id;
  }
  if (EVM_ADDRESS.test(text)) {
    const hex = text.startsWith('0x') ? text.slice(2) : text;
    return entityIdFromParts(
      BigInt(`0x${hex.slice(0, 8)}`),
      BigInt(`0x${hex.slice(8, 24)}`),
      BigInt(`0x${hex.slice(24, 40)}`),
    );
  }
  throw new RangeError(`invalid entity id ${describe(value)}`);
}

/** transaction_hash.distribution_id: the first two hash bytes as a signed big-endian 16-bit integer. */
export function distributionId(hash: unknown): number {
  if (!Buffer.isBuffer(hash) || hash.length < 2) {
    throw new RangeError(`transaction hash must have at least 2 bytes, got ${describe(hash)}`);
  }
  return hash.readInt16BE(0);
}

/** A PostgreSQL array literal: [] -> '{}', [7001] -> '{7001}', strings quoted and escaped. */
export function pgArrayLiteral(values: readonly unknown[]): string {
  const elements = values.map((element) => {
    if (element === null || element === undefined) return 'NULL';
    if (Array.isArray(element)) return pgArrayLiteral(element);
    if (typeof element === 'number' || typeof element === 'bigint') return String(element);
    const text = toPgText(element) ?? '';
    return `"${text.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;
  });
  return `{${elements.join(',')}}`;
}

/** The text sent to PostgreSQL for a value: bytes as '\x..' hex, arrays as array literals, else String(). */
export function toPgText(value: unknown): string | null {
  if (value === null || value === undefined) return null;
  if (value instanceof Uint8Array) return `\\x${Buffer.from(value.buffer, value.byteOffset, value.byteLength).toString('hex')}`;
  if (Array.isArray(value)) return pgArrayLiteral(value);
  if (typeof value === 'object') return jsonText(value);
  return String(value);
}

/** JSON text of a value, with BigInt written as plain integer digits. */
export function jsonText(value: unknown): string {
  const marker = '\u0000bigint:';
  const text = JSON.stringify(value, (_key, v: unknown) => (typeof v === 'bigint' ? `${marker}${v}` : v));
  return text.replace(/"\\u0000bigint:(-?\d+)"/g, '$1');
}

function describe(value: unknown): string {
  if (value === undefined) return 'undefined';
  if (typeof value === 'bigint') return `${value}n`;
  if (typeof value === 'string') return JSON.stringify(value);
  if (value instanceof Uint8Array) return `<${value.length} bytes>`;
  try {
    return jsonText(value);
  } catch {
    return String(value);
  }
}

// ---------------------------------------------------------------------------------------------------
// Database access
// ---------------------------------------------------------------------------------------------------

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

function columnTypes(db: SqlExecutor): Promise<ColumnTypes> {
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

interface LoadContext {
  db: SqlExecutor;
  types: ColumnTypes;
}

/**
 * `insert into <table> (<columns>) values (...)` with one text parameter per column; a column whose
 * value is missing from the row is inserted as NULL. Column names come from the loader or from spec
 * keys (folded to lower case like unquoted SQL identifiers).
 */
async function insertRow(ctx: LoadContext, table: string, columns: readonly string[], row: Row): Promise<void> {
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
function convertBytea(row: Row, fields: readonly string[]): void {
  for (const field of fields) row[field] = hexOrBase64(row[field]);
}

// ---------------------------------------------------------------------------------------------------
// Setup keys
// ---------------------------------------------------------------------------------------------------

const ENTITY_COLUMNS = [
  'alias', 'auto_renew_account_id', 'auto_renew_period', 'balance', 'balance_timestamp', 'created_timestamp',
  'decline_reward', 'deleted', 'ethereum_nonce', 'evm_address', 'expiration_timestamp', 'id', 'key',
  'max_automatic_token_associations', 'memo', 'num', 'obtainer_id', 'permanent_removal', 'proxy_account_id',
  'public_key', 'realm', 'receiver_sig_required', 'shard', 'stake_period_start', 'staked_account_id',
  'staked_node_id', 'timestamp_range', 'type',
] as const;

const ENTITY_DEFAULTS: Row = {
  alias: null,
  auto_renew_account_id: null,
  auto_renew_period: null,
  balance: null,
  balance_timestamp: null,
  created_timestamp: null,
  decline_reward: false,
  deleted: false,
  ethereum_nonce: null,
  evm_address: null,
  expiration_timestamp: null,
  id: null,
  key: null,
  max_automatic_token_associations: null,
  memo: 'entity memo',
  num: 0,
  obtainer_id: null,
  permanent_removal: null,
  proxy_account_id: null,
  public_key: null,
  realm: 0,
  receiver_sig_required: false,
  shard: 0,
  staked_account_id: null,
  staked_node_id: -1,
  stake_period_start: -1,
  timestamp_range: '[0,)',
  type: 'ACCOUNT',
};

const ACCOUNT_OVERRIDES: Row = {
  max_automatic_token_associations: 0,
  public_key: '4a5ad514f0957fa170a676210c9bdbddf3bc9519702cf915fa6767a40463b96f',
  type: 'ACCOUNT',
};

const CONTRACT_ENTITY_OVERRIDES: Row = {
  max_automatic_token_associations: 0,
  memo: 'contract memo',
  receiver_sig_required: null,
  type: 'CONTRACT',
};

const CONTRACT_COLUMNS = ['file_id', 'id', 'initcode', 'runtime_bytecode'] as const;
const CONTRACT_DEFAULTS: Row = { file_id: null, id: null, initcode: null, runtime_bytecode: null };

/** An entity is current (table entity) only when its timestamp_range text ends with ',)'. */
export function isCurrentRange(timestampRange: unknown): boolean {
  if (typeof timestampRange !== 'string') {
    throw new TypeError(`timestamp_range must be a string, got ${describe(timestampRange)}`);
  }
  return timestampRange.endsWith(',)');
}

/** Inserts an entity into entity or entity_history; returns the encoded row and whether it is current. */
async function addEntity(ctx: LoadContext, overrides: Row, input: Row): Promise<{ entity: Row; current: boolean }> {
  const entity: Row = { ...ENTITY_DEFAULTS, ...overrides, ...input };
  entity.id = entityIdFromParts(entity.shard, entity.realm, entity.num);
  entity.alias = aliasBytes(entity.alias);
  entity.evm_address = hexOrBase64(entity.evm_address);
  entity.key = entityKeyBytes(entity.key);
  const current = isCurrentRange(entity.timestamp_range);
  await insertRow(ctx, current ? 'entity' : 'entity_history', ENTITY_COLUMNS, entity);
  return { entity, current };
}

async function addAccount(ctx: LoadContext, input: Row): Promise<void> {
  await addEntity(ctx, ACCOUNT_OVERRIDES, input);
}

async function addPlainEntity(ctx: LoadContext, input: Row): Promise<void> {
  await addEntity(ctx, {}, input);
}

async function addContract(ctx: LoadContext, input: Row): Promise<void> {
  const { entity, current } = await addEntity(ctx, CONTRACT_ENTITY_OVERRIDES, input);
  if (!current) return;
  const contract: Row = { ...CONTRACT_DEFAULTS, ...entity, ...input };
  convertBytea(contract, ['initcode', 'runtime_bytecode']);
  await insertRow(ctx, 'contract', CONTRACT_COLUMNS, contract);
}

const RECORD_FILE_COLUMNS = [
  'bytes', 'gas_used', 'consensus_end', 'consensus_start', 'count', 'digest_algorithm', 'file_hash', 'index',
  'hapi_version_major', 'hapi_version_minor', 'hapi_version_patch', 'hash', 'load_end', 'load_start', 'logs_bloom',
  'name', 'node_id', 'prev_hash', 'size', 'version',
] as const;

const RECORD_FILE_DEFAULTS: Row = {
  bytes: '0x010102020303',
  consensus_end: '1628751573995691000',
  consensus_start: '1628751572000852000',
  count: 1200,
  digest_algorithm: 0,
  file_hash: 'dee34bdd8bbe32fdb53ce7e3cf764a0495fa5e93b15ca567208cfb384231301bedf821de07b0d8dc3fb55c5b3c90ac61',
  gas_used: 0,
  hapi_version_major: 0,
  hapi_version_minor: 11,
  hapi_version_patch: 0,
  hash: 'ed55d98d53fd55c9caf5f61affe88cd2978d37128ec54af5dace29b6fd271cbd079ebe487bda5f227087e2638b1100cf',
  index: 123456789,
  load_end: 1629298236,
  load_start: 1629298233,
  logs_bloom: '',
  name: '2021-08-12T06_59_32.000852000Z.rcd',
  node_id: 0,
  prev_hash: '000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000',
  size: 6,
  version: 5,
};

async function addRecordFile(ctx: LoadContext, input: Row): Promise<void> {
  const recordFile: Row = { ...RECORD_FILE_DEFAULTS, ...input };
  convertBytea(recordFile, ['bytes', 'logs_bloom']);
  const bytes = recordFile.bytes;
  // size = bytes.length unless bytes is null (a non-byte value has no length: NULL)
  if (bytes !== null) recordFile.size = Buffer.isBuffer(bytes) ? bytes.length : undefined;
  await insertRow(ctx, 'record_file', RECORD_FILE_COLUMNS, recordFile);
}

const CONTRACT_RESULT_COLUMNS = [
  'amount', 'bloom', 'call_result', 'consensus_timestamp', 'contract_id', 'created_contract_ids', 'error_message',
  'failed_initcode', 'function_parameters', 'function_result', 'gas_consumed', 'gas_limit', 'gas_used',
  'payer_account_id', 'sender_id', 'transaction_hash', 'transaction_index', 'transaction_nonce', 'transaction_result',
] as const;

const CONTRACT_RESULT_DEFAULTS: Row = {
  amount: 0,
  bloom: null,
  call_result: null,
  consensus_timestamp: 1234510001,
  contract_id: 0,
  created_contract_ids: [],
  error_message: '',
  failed_initcode: null,
  function_parameters: '0x010102020303',
  function_result: null,
  gas_consumed: null,
  gas_limit: 1000,
  gas_used: null,
  payer_account_id: 102,
  sender_id: 101,
  transaction_hash: '0x000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f',
  transaction_index: 1,
  transaction_nonce: 0,
  transaction_result: 22,
};

const CONTRACT_TRANSACTION_HASH_COLUMNS = [
  'consensus_timestamp', 'entity_id', 'hash', 'payer_account_id', 'transaction_result',
] as const;

async function addContractResult(ctx: LoadContext, input: Row): Promise<void> {
  const result: Row = { ...CONTRACT_RESULT_DEFAULTS, ...input };
  convertBytea(result, [
    'bloom', 'call_result', 'failed_initcode', 'function_parameters', 'function_result', 'transaction_hash',
  ]);
  await insertRow(ctx, 'contract_result', CONTRACT_RESULT_COLUMNS, result);
  await insertRow(ctx, 'contract_transaction_hash', CONTRACT_TRANSACTION_HASH_COLUMNS, {
    consensus_timestamp: result.consensus_timestamp,
    entity_id: result.contract_id,
    hash: result.transaction_hash,
    payer_account_id: result.payer_account_id,
    transaction_result: result.transaction_result,
  });
}

const CONTRACT_LOG_DEFAULTS: Row = {
  bloom: '0x0123',
  consensus_timestamp: 1234510001,
  contract_id: 1,
  data: '0x0123',
  index: 0,
  payer_account_id: 102,
  root_contract_id: null,
  topic0: '0x97c1fc0a6ed5551bc831571325e9bdb365d06803100dc20648640ba24ce69750',
  topic1: '0x8c5be1e5ebec7d5bd14f71427d1e84f3dd0314c0f7b2291e5b200ac8c7c3b925',
  topic2: '0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef',
  topic3: '0xe8d47b56e8cdfa95f871b19d4f50a857217c44a95502b0811a350fec1500dd67',
  transaction_hash: '0x000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f',
  transaction_index: 0,
};

async function addContractLog(ctx: LoadContext, input: Row): Promise<void> {
  const log: Row = { ...CONTRACT_LOG_DEFAULTS, ...input };
  convertBytea(log, ['bloom', 'data', 'topic0', 'topic1', 'topic2', 'topic3', 'transaction_hash']);
  await insertRow(ctx, 'contract_log', Object.keys(log), log);
}

const CONTRACT_STATE_CHANGE_DEFAULTS: Row = {
  consensus_timestamp: 1234510001,
  contract_id: 1,
  migration: false,
  payer_account_id: 2,
  slot: '0x1',
  value_read: '0x0101',
  value_written: '0xa1a1',
};

async function addContractStateChange(ctx: LoadContext, input: Row): Promise<void> {
  const change: Row = { ...CONTRACT_STATE_CHANGE_DEFAULTS, ...input };
  convertBytea(change, ['slot', 'value_read', 'value_written']);
  await insertRow(ctx, 'contract_state_change', Object.keys(change), change);
}

const CONTRACT_TRANSACTION_COLUMNS = ['consensus_timestamp', 'entity_id', 'payer_account_id', 'contract_ids'] as const;

/** One group of global.contract_transaction_derivation: all rows sharing a consensus timestamp. */
interface ContractTransactionGroup {
  payer: unknown;
  ids: unknown[];
}

/**
 * global.contract_transaction_derivation: results, then logs, then state changes (each merged with
 * its defaults) grouped by the text of consensus_timestamp; each group lists its contract ids and
 * payers (strict-equality dedup) and gets one contract_transaction row per listed id.
 */
export function deriveContractTransactions(setup: Record<string, unknown>): Row[] {
  const merged = [
    ...rowsOf(setup, 'contractresults').map((row) => ({ ...CONTRACT_RESULT_DEFAULTS, ...row })),
    ...rowsOf(setup, 'contractlogs').map((row) => ({ ...CONTRACT_LOG_DEFAULTS, ...row })),
    ...rowsOf(setup, 'contractStateChanges').map((row) => ({ ...CONTRACT_STATE_CHANGE_DEFAULTS, ...row })),
  ];
  const groups = new Map<string, ContractTransactionGroup>();
  for (const row of merged) {
    const key = String(row.consensus_timestamp);
    let group = groups.get(key);
    if (group === undefined) groups.set(key, (group = { payer: row.payer_account_id, ids: [] }));
    if (!group.ids.includes(row.contract_id)) group.ids.push(row.contract_id);
    if (!group.ids.includes(row.payer_account_id)) group.ids.push(row.payer_account_id);
  }
  const rows: Row[] = [];
  for (const [consensusTimestamp, group] of groups) {
    const contractIds = `{${group.ids.join(',')}}`;
    for (const id of group.ids) {
      rows.push({
        consensus_timestamp: consensusTimestamp,
        entity_id: id,
        payer_account_id: group.payer,
        contract_ids: contractIds,
      });
    }
  }
  return rows;
}

const CONTRACT_STATE_COLUMNS = ['contract_id', 'created_timestamp', 'modified_timestamp', 'slot', 'value'] as const;

const CONTRACT_STATE_DEFAULTS: Row = {
  contract_id: null,
  created_timestamp: '1664365660048675000',
  modified_timestamp: '1664365660048675000',
  slot: '0000000000000000000000000000000000000000000000000000000000000001',
  value: 1,
};

async function addContractState(ctx: LoadContext, input: Row): Promise<void> {
  const state: Row = { ...CONTRACT_STATE_DEFAULTS, ...input };
  convertBytea(state, ['slot', 'value']);
  await insertRow(ctx, 'contract_state', CONTRACT_STATE_COLUMNS, state);
}

const CONTRACT_ACTION_COLUMNS = [
  'call_depth', 'call_operation_type', 'call_type', 'caller', 'caller_type', 'consensus_timestamp', 'gas', 'gas_used',
  'index', 'input', 'payer_account_id', 'recipient_account', 'recipient_address', 'recipient_contract', 'result_data',
  'result_data_type', 'value',
] as const;

const CONTRACT_ACTION_DEFAULTS: Row = {
  call_depth: 1,
  call_operation_type: 1,
  call_type: 1,
  caller: 8001,
  caller_type: 'CONTRACT',
  consensus_timestamp: 1234510001,
  gas: 10000,
  gas_used: 5000,
  index: 1,
  input: null,
  payer_account_id: 102,
  recipient_account: null,
  recipient_address: null,
  recipient_contract: null,
  result_data: null,
  result_data_type: 11,
  value: 100,
};

async function addContractAction(ctx: LoadContext, input: Row): Promise<void> {
  const action: Row = { ...CONTRACT_ACTION_DEFAULTS, ...input };
  convertBytea(action, ['input', 'recipient_address', 'result_data']);
  await insertRow(ctx, 'contract_action', CONTRACT_ACTION_COLUMNS, action);
}

const ETHEREUM_TRANSACTION_DEFAULTS: Row = {
  access_list: null,
  call_data_id: null,
  call_data: null,
  chain_id: null,
  consensus_timestamp: '187654000123456',
  data: '0x000000000',
  gas_limit: 1000000,
  gas_price: '0x4a817c80',
  hash: '0x0000000000000000000000000000000000000000000000000000000000000123',
  max_fee_per_gas: null,
  max_gas_allowance: 10000,
  max_priority_fee_per_gas: null,
  nonce: 1,
  payer_account_id: 5001,
  recovery_id: 1,
  signature_r: '0xd693b532a80fed6392b428604171fb32fdbf953728a3a7ecc7d4062b1652c042',
  signature_s: '0x24e9c602ac800b983b035700a14b23f78a253ab762deab5dc27e3555a750b354',
  signature_v: '0x1b',
  to_address: '0x0000000000000000000000000000000000001389',
  type: 2,
  value: '0x0',
};

const ETHEREUM_TRANSACTION_BYTEA = [
  'access_list', 'call_data', 'chain_id', 'data', 'gas_price', 'hash', 'max_fee_per_gas', 'max_priority_fee_per_gas',
  'signature_r', 'signature_s', 'signature_v', 'to_address', 'value',
] as const;

async function addEthereumTransaction(ctx: LoadContext, input: Row): Promise<void> {
  const columns = Object.fromEntries(Object.entries(input).filter(([key]) => !key.startsWith('_')));
  const transaction: Row = { ...ETHEREUM_TRANSACTION_DEFAULTS, ...columns };
  convertBytea(transaction, ETHEREUM_TRANSACTION_BYTEA);
  await insertRow(ctx, 'ethereum_transaction', Object.keys(transaction), transaction);
}

/** File ids whose string file_data is hex (fee schedule 111, exchange rates 112); others are UTF-8. */
const HEX_ENCODED_FILE_IDS: readonly unknown[] = [111, 112];
const FILE_DATA_COLUMNS = ['file_data', 'consensus_timestamp', 'entity_id', 'transaction_type'] as const;

async function addFileData(ctx: LoadContext, input: Row): Promise<void> {
  const fileData: Row = { transaction_type: 17, ...input };
  const data = input.file_data;
  if (typeof data === 'string') {
    fileData.file_data = Buffer.from(data, HEX_ENCODED_FILE_IDS.includes(input.entity_id) ? 'hex' : 'utf8');
  } else if (Array.isArray(data)) {
    fileData.file_data = bytesFromArray(data);
  } else {
    throw new TypeError(`filedata.file_data must be a string or a byte array, got ${describe(data)}`);
  }
  await insertRow(ctx, 'file_data', FILE_DATA_COLUMNS, fileData);
}

const TRANSACTION_COLUMNS = [
  'batch_key', 'charged_tx_fee', 'consensus_timestamp', 'entity_id', 'inner_transactions', 'max_custom_fees',
  'max_fee', 'nft_transfer', 'node_account_id', 'nonce', 'parent_consensus_timestamp', 'payer_account_id', 'result',
  'scheduled', 'transaction_bytes', 'transaction_hash', 'type', 'valid_duration_seconds', 'valid_start_ns', 'index',
] as const;

const NODE_FEE = 2n;
const NETWORK_FEE = 1n;
const SERVICE_FEE = 4n;
const DEFAULT_NODE_ACCOUNT = 3n;
const DEFAULT_FEE_COLLECTOR = 98n;

const TRANSACTION_DEFAULTS: Row = {
  batch_key: null,
  charged_tx_fee: NODE_FEE + NETWORK_FEE + SERVICE_FEE,
  consensus_timestamp: null,
  entity_id: null,
  inner_transactions: null,
  max_custom_fees: [],
  max_fee: 33,
  nft_transfer: null,
  node_account_id: null,
  nonce: 0,
  parent_consensus_timestamp: null,
  payer_account_id: null,
  result: 22,
  scheduled: false,
  transaction_bytes: 'bytes',
  transaction_hash: '0x0102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f202122232425262728292a2b2c2d2e2f30',
  type: 14,
  valid_duration_seconds: 11,
  valid_start_ns: null,
  index: 1,
};

const TRANSFER_COLUMNS = ['consensus_timestamp', 'amount', 'entity_id', 'payer_account_id', 'is_approval'] as const;
const TOKEN_TRANSFER_COLUMNS = [
  'consensus_timestamp', 'token_id', 'account_id', 'amount', 'payer_account_id', 'is_approval',
] as const;
const TRANSACTION_HASH_COLUMNS = ['consensus_timestamp', 'hash', 'payer_account_id', 'distribution_id'] as const;

/** JavaScript's `value > 0` for the loose types a spec can hold. */
function isPositive(value: unknown): boolean {
  return typeof value === 'bigint' ? value > 0n : Number(value) > 0;
}

/** transactions.batch_key: a hex string (no 0x handling) or a byte array; null stays NULL. */
function batchKeyBytes(value: unknown): Buffer | null {
  if (value === null || value === undefined) return null;
  if (typeof value === 'string') return Buffer.from(value, 'hex');
  if (Array.isArray(value)) return bytesFromArray(value);
  throw new TypeError(`batch_key must be a hex string or a byte array, got ${describe(value)}`);
}

/** transactions.nft_transfer: entity ids of every transfer parsed, then the list as JSON text. */
function nftTransferJson(value: unknown): string | null {
  if (value === null) return null;
  if (!Array.isArray(value)) throw new TypeError(`nft_transfer must be an array, got ${describe(value)}`);
  const transfers = value.map((transfer) => {
    const copy: Row = { ...asRow(transfer, 'nft_transfer entry') };
    for (const key of ['receiver_account_id', 'sender_account_id', 'token_id']) {
      copy[key] = parseEntityId(copy[key], { nullable: true });
    }
    return copy;
  });
  return jsonText(transfers);
}

async function addTransaction(ctx: LoadContext, input: Row): Promise<void> {
  const transaction: Row = { ...TRANSACTION_DEFAULTS, transfers: [], ...input };
  // a valid_start_ns given in the spec is ignored
  transaction.valid_start_ns =
    input.valid_start_timestamp !== undefined
      ? input.valid_start_timestamp
      : toBigInt(transaction.consensus_timestamp, 'consensus_timestamp') - 1n;
  const payer = parseEntityId(transaction.payerAccountId);
  const node = parseEntityId(transaction.nodeAccountId, { nullable: true });
  transaction.payer_account_id = payer;
  transaction.node_account_id = node;
  transaction.entity_id = parseEntityId(transaction.entity_id, { nullable: true });
  transaction.transaction_hash = hexOrBase64(transaction.transaction_hash);
  transaction.batch_key = batchKeyBytes(transaction.batch_key);
  transaction.nft_transfer = nftTransferJson(transaction.nft_transfer);
  const maxCustomFees = transaction.max_custom_fees;
  if (Array.isArray(maxCustomFees) && maxCustomFees.length > 0) {
    throw new Error('transactions.max_custom_fees: protobuf CustomFeeLimit encoding is not supported');
  }
  await insertRow(ctx, 'transaction', TRANSACTION_COLUMNS, transaction);

  const consensusTimestamp = transaction.consensus_timestamp;
  await insertRow(ctx, 'transaction_hash', TRANSACTION_HASH_COLUMNS, {
    consensus_timestamp: consensusTimestamp,
    hash: transaction.transaction_hash,
    payer_account_id: payer,
    distribution_id: distributionId(transaction.transaction_hash),
  });

  const transfers = transaction.transfers;
  if (!Array.isArray(transfers)) throw new TypeError(`transfers must be an array, got ${describe(transfers)}`);
  if (transfers.length === 0 && isPositive(transaction.charged_tx_fee) && payer !== 0n) {
    const feeTransfers: [bigint, bigint][] = [
      [NODE_FEE, node || DEFAULT_NODE_ACCOUNT],
      [NETWORK_FEE, DEFAULT_FEE_COLLECTOR],
      [-(NODE_FEE + NETWORK_FEE), payer],
    ];
    for (const [amount, account] of feeTransfers) {
      await insertRow(ctx, 'crypto_transfer', TRANSFER_COLUMNS, {
        consensus_timestamp: consensusTimestamp,
        amount,
        entity_id: account,
        payer_account_id: payer,
        is_approval: false,
      });
    }
  }
  for (const entry of transfers) {
    const transfer = asRow(entry, 'transfer');
    await insertRow(ctx, 'crypto_transfer', TRANSFER_COLUMNS, {
      consensus_timestamp: consensusTimestamp,
      amount: transfer.amount,
      entity_id: parseEntityId(transfer.account),
      payer_account_id: payer,
      is_approval: transfer.is_approval,
    });
  }

  const tokenTransfers = transaction.token_transfer_list;
  if (Array.isArray(tokenTransfers)) {
    for (const entry of tokenTransfers) {
      const transfer = asRow(entry, 'token transfer');
      await insertRow(ctx, 'token_transfer', TOKEN_TRANSFER_COLUMNS, {
        consensus_timestamp: consensusTimestamp,
        token_id: parseEntityId(transfer.token_id),
        account_id: parseEntityId(transfer.account),
        amount: transfer.amount,
        payer_account_id: payer,
        is_approval: transfer.is_approval,
      });
    }
  }
}

async function addTransactionHash(ctx: LoadContext, input: Row): Promise<void> {
  const row: Row = { ...input };
  row.hash = hexOrBase64(row.hash);
  row.payer_account_id = parseEntityId(row.payer_account_id);
  row.distribution_id = distributionId(row.hash);
  await insertRow(ctx, 'transaction_hash', Object.keys(row), row);
}

async function addContractTransaction(ctx: LoadContext, row: Row): Promise<void> {
  await insertRow(ctx, 'contract_transaction', CONTRACT_TRANSACTION_COLUMNS, row);
}

// ---------------------------------------------------------------------------------------------------
// loadSetup
// ---------------------------------------------------------------------------------------------------

type RowLoader = (ctx: LoadContext, row: Row) => Promise<void>;

const DERIVED_CONTRACT_TRANSACTIONS = '(derived contract_transaction rows)';

/** The loaders of the setup keys this loader implements. */
const LOADERS: Readonly<Record<string, RowLoader>> = {
  accounts: addAccount,
  contracts: addContract,
  contractactions: addContractAction,
  contractlogs: addContractLog,
  contractresults: addContractResult,
  contractStateChanges: addContractStateChange,
  entities: addPlainEntity,
  ethereumtransactions: addEthereumTransaction,
  filedata: addFileData,
  recordFiles: addRecordFile,
  transactions: addTransaction,
  transactionhashes: addTransactionHash,
  contractStates: addContractState,
};

/**
 * Setup keys the reference loader understands but defaults.json does not describe (none occurs in
 * the contract specs): loading one throws instead of silently dropping its rows.
 */
export const UNSUPPORTED_SETUP_KEYS: readonly string[] = [
  'addressbooks', 'addressbookentries', 'addressbookserviceendpoints', 'assessedcustomfees', 'balances',
  'cryptotransfers', 'cryptoAllowances', 'customfees', 'entityStakes', 'networkstakes', 'nfts', 'nodes', 'nodestakes',
  'schedules', 'stakingRewardTransfers', 'topicmessages', 'topicmessagelookups', 'tokens', 'tokenaccounts',
  'tokenAllowances', 'tokenBalance', 'transactionsignatures',
];

/** global.load_order of defaults.json (reference loader order). */
export const LOAD_ORDER: readonly string[] = [
  'accounts', 'addressbooks', 'addressbookentries', 'addressbookserviceendpoints', 'assessedcustomfees', 'balances',
  'cryptotransfers', 'contracts', 'contractactions', 'contractlogs', 'contractresults', 'contractStateChanges',
  DERIVED_CONTRACT_TRANSACTIONS, 'cryptoAllowances', 'customfees', 'entities', 'entityStakes', 'ethereumtransactions',
  'filedata', 'networkstakes', 'nfts', 'nodes', 'nodestakes', 'recordFiles', 'schedules', 'stakingRewardTransfers',
  'topicmessages', 'topicmessagelookups', 'tokens', 'tokenaccounts', 'tokenAllowances', 'tokenBalance', 'transactions',
  'transactionhashes', 'transactionsignatures', 'contractStates',
];

function asRow(value: unknown, what: string): Row {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new TypeError(`${what} must be an object, got ${describe(value)}`);
  }
  return value as Row;
}

/** The rows of one setup key: [] when absent or null, else the array's objects. */
function rowsOf(setup: Record<string, unknown>, key: string): Row[] {
  const value = setup[key];
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) throw new TypeError(`setup.${key} must be an array, got ${describe(value)}`);
  return value.map((row, i) => asRow(row, `setup.${key}[${i}]`));
}

async function loadRows(ctx: LoadContext, key: string, rows: readonly Row[], load: RowLoader): Promise<void> {
  for (const [i, row] of rows.entries()) {
    try {
      await load(ctx, row);
    } catch (err) {
      throw new Error(`setup.${key}[${i}]: ${(err as Error)?.message ?? String(err)}`, { cause: err });
    }
  }
}

/**
 * Loads a spec's `setup` in the reference order (global.load_order), one INSERT per row. `config`,
 * `features` and `sql` are not data and are ignored, as are keys the reference loader does not know;
 * keys of UNSUPPORTED_SETUP_KEYS with rows throw.
 */
export async function loadSetup(db: SqlExecutor, setup: Record<string, unknown>): Promise<void> {
  for (const key of UNSUPPORTED_SETUP_KEYS) {
    if (rowsOf(setup, key).length > 0) throw new Error(`setup.${key} is not supported by the conformance loader`);
  }
  const ctx: LoadContext = { db, types: await columnTypes(db) };
  for (const key of LOAD_ORDER) {
    if (key === DERIVED_CONTRACT_TRANSACTIONS) {
      await loadRows(ctx, 'contract_transaction (derived)', deriveContractTransactions(setup), addContractTransaction);
      continue;
    }
    const load = LOADERS[key];
    if (load !== undefined) await loadRows(ctx, key, rowsOf(setup, key), load);
  }
}
