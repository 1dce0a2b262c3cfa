// Setup keys of the entity family: accounts, entities, contracts (entity, entity_history, contract),
// file data and record files, with their defaults.
import { type LoadContext, convertBytea, insertRow } from './database.ts';
import { type Row, aliasBytes, bytesFromArray, describeValue, entityIdFromParts, entityKeyBytes, hexOrBase64 } from './values.ts';

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
    throw new TypeError(`timestamp_range must be a string, got ${describeValue(timestampRange)}`);
  }
  return timestampRange.endsWith(',)');
}

/** Inserts an entity into entity or entity_history; returns the encoded row and whether it is current. */
export async function addEntity(ctx: LoadContext, overrides: Row, input: Row): Promise<{ entity: Row; current: boolean }> {
  const entity: Row = { ...ENTITY_DEFAULTS, ...overrides, ...input };
  entity.id = entityIdFromParts(entity.shard, entity.realm, entity.num);
  entity.alias = aliasBytes(entity.alias);
  entity.evm_address = hexOrBase64(entity.evm_address);
  entity.key = entityKeyBytes(entity.key);
  const current = isCurrentRange(entity.timestamp_range);
  await insertRow(ctx, current ? 'entity' : 'entity_history', ENTITY_COLUMNS, entity);
  return { entity, current };
}

export async function addAccount(ctx: LoadContext, input: Row): Promise<void> {
  await addEntity(ctx, ACCOUNT_OVERRIDES, input);
}

export async function addPlainEntity(ctx: LoadContext, input: Row): Promise<void> {
  await addEntity(ctx, {}, input);
}

export async function addContract(ctx: LoadContext, input: Row): Promise<void> {
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

export async function addRecordFile(ctx: LoadContext, input: Row): Promise<void> {
  const recordFile: Row = { ...RECORD_FILE_DEFAULTS, ...input };
  convertBytea(recordFile, ['bytes', 'logs_bloom']);
  const bytes = recordFile.bytes;
  // size = bytes.length unless bytes is null (a non-byte value has no length: NULL)
  if (bytes !== null) recordFile.size = Buffer.isBuffer(bytes) ? bytes.length : undefined;
  await insertRow(ctx, 'record_file', RECORD_FILE_COLUMNS, recordFile);
}

/** File ids whose string file_data is hex (fee schedule 111, exchange rates 112); others are UTF-8. */
const HEX_ENCODED_FILE_IDS: readonly unknown[] = [111, 112];
const FILE_DATA_COLUMNS = ['file_data', 'consensus_timestamp', 'entity_id', 'transaction_type'] as const;

export async function addFileData(ctx: LoadContext, input: Row): Promise<void> {
  const fileData: Row = { transaction_type: 17, ...input };
  const data = input.file_data;
  if (typeof data === 'string') {
    fileData.file_data = Buffer.from(data, HEX_ENCODED_FILE_IDS.includes(input.entity_id) ? 'hex' : 'utf8');
  } else if (Array.isArray(data)) {
    fileData.file_data = bytesFromArray(data);
  } else {
    throw new TypeError(`filedata.file_data must be a string or a byte array, got ${describeValue(data)}`);
  }
  await insertRow(ctx, 'file_data', FILE_DATA_COLUMNS, fileData);
}
