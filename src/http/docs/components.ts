/**
 * The shared component schemas of the API documentation: the objects several routes answer with
 * (contracts, contract results, logs, state changes, storage slots, actions), their common value
 * formats, the `links` object and the error body. Each is registered on the app under its `$id`
 * and becomes `#/components/schemas/<$id>` of the OpenAPI document. Field names, order and
 * descriptions follow the reference's OpenAPI document (mirror node REST API 0.129); types,
 * nullability and patterns are what this service answers, checked against every answer of the
 * conformance suite (test/http/docs/schemas.test.ts). Keys are listed in the order the answers carry them.
 */
import { BLOCK_HASH, BLOCK_NUMBER, BLOOM, ENTITY_ID, ERROR, EVM_ADDRESS, KEY, LINKS, TIMESTAMP, TIMESTAMP_RANGE, WORD, hex, int32, int64, nullable } from './formats.ts';
import { type JsonSchema, closedObject, ref } from './schema.ts';

export { ERROR_BODY } from './formats.ts';

// ---------------------------------------------------------------------------------------------

const CONTRACT_PROPERTIES: Record<string, JsonSchema> = {
  admin_key: ref('Key'),
  auto_renew_account: ref('EntityIdNullable'),
  auto_renew_period: nullable(int64('The auto renew period in seconds', [7776000])),
  contract_id: ref('EntityId'),
  created_timestamp: ref('TimestampNullable'),
  deleted: { type: ['boolean', 'null'], examples: [false] },
  evm_address: ref('EvmAddress'),
  expiration_timestamp: ref('TimestampNullable'),
  file_id: ref('EntityIdNullable'),
  max_automatic_token_associations: nullable(int32('The maximum number of automatic token associations')),
  memo: { type: 'string', examples: ['contract memo'] },
  nonce: nullable(int64('The Ethereum nonce of the contract')),
  obtainer_id: ref('EntityIdNullable'),
  permanent_removal: { type: ['boolean', 'null'] },
  proxy_account_id: ref('EntityIdNullable'),
  timestamp: ref('TimestampRange'),
};

const CONTRACT: JsonSchema = { $id: 'Contract', ...closedObject(CONTRACT_PROPERTIES, 'A contract entity (the items of /api/v1/contracts)') };

const CONTRACT_RESPONSE: JsonSchema = {
  $id: 'ContractResponse',
  ...closedObject(
    {
      ...CONTRACT_PROPERTIES,
      bytecode: { type: 'string', description: 'The contract bytecode in hex during deployment', examples: ['0x01021a1fdc9b'] },
      runtime_bytecode: hex('The contract bytecode in hex after deployment', ['0x0302fa1ad39c']),
    },
    'A contract entity with its bytecodes',
  ),
};

// ---------------------------------------------------------------------------------------------

/** The keys the per-contract result item shares with the detailed result, in answer order. */
const RESULT_HEAD: Record<string, JsonSchema> = {
  address: { ...nullable(EVM_ADDRESS), description: 'The hex encoded evm address of contract' },
  amount: nullable(int64('The number of tinybars sent to the function', [10])),
  bloom: BLOOM('The hex encoded bloom filter of the contract result'),
  call_result: hex('The hex encoded result returned by the function', ['0x2b048531b38d2882e86044bc972e940ee0a01938']),
  contract_id: ref('EntityIdNullable'),
  created_contract_ids: {
    type: 'array',
    description: 'The list of smart contracts that were created by the function call.',
    items: ref('EntityIdNullable'),
  },
  error_message: { type: ['string', 'null'], description: 'The message when an error occurs during smart contract execution', examples: ['Out of gas'] },
  from: { ...nullable(EVM_ADDRESS), description: 'The EVM address of the sender' },
  function_parameters: hex('The hex encoded parameters passed to the function', ['0xbb9f02dc6f0e3289f57a1f33b71c73aa8548ab8b']),
  gas_consumed: nullable(int64('The units of consumed gas by the EVM to execute contract', [35000])),
  gas_limit: int64('The maximum units of gas allowed for contract execution', [100000]),
  gas_used: nullable(int64('The units of gas used to execute contract', [80000])),
  timestamp: ref('Timestamp'),
  to: { ...nullable(EVM_ADDRESS), description: 'The EVM address of the called contract' },
  hash: hex('The hex encoded transaction hash (the Ethereum hash of an Ethereum transaction)', [
    '0xfebbaa29c513d124a6377246ea3506ad917d740c21a88f61a1c55ba338fc2bb1',
  ]),
};

const CONTRACT_RESULT: JsonSchema = { $id: 'ContractResult', ...closedObject(RESULT_HEAD, 'A contract function execution (the items of /api/v1/contracts/{contractIdOrAddress}/results)') };

const ethField = (description: string, examples: string[]): JsonSchema => ({
  type: ['string', 'null'],
  pattern: '^0x[0-9a-f]*$',
  description: `${description}; null unless the result is of an Ethereum transaction`,
  examples,
});

/** The keys of the detailed result after `block_number` (and `logs` / `state_changes` where they go). */
function detailedProperties(single: boolean): Record<string, JsonSchema> {
  return {
    ...RESULT_HEAD,
    block_hash: BLOCK_HASH,
    block_number: BLOCK_NUMBER,
    ...(single ? { logs: { type: 'array', description: 'The logs of the execution, of every contract it called', items: ref('ContractResultLog') } } : {}),
    result: { type: 'string', description: 'The result of the transaction', examples: ['SUCCESS'] },
    transaction_index: nullable(int32('The position of the transaction in the block', [1])),
    ...(single
      ? { state_changes: { type: 'array', description: 'The storage the execution read and wrote', items: ref('ContractResultStateChange') } }
      : {}),
    status: { type: 'string', enum: ['0x0', '0x1'], description: 'The status of the transaction, 0x1 for a SUCCESS transaction and 0x0 for all else' },
    failed_initcode: { type: ['string', 'null'], pattern: '^0x[0-9a-f]*$', description: 'The hex encoded initcode of a failed contract create transaction', examples: ['0x856739'] },
    access_list: ethField('The hex encoded access_list of the wrapped ethereum transaction', ['0xabcd']),
    block_gas_used: nullable(int64('The total amount of gas used in the block', [2000])),
    chain_id: ethField('The hex encoded chain_id of the wrapped ethereum transaction', ['0x127']),
    gas_price: ethField('The hex encoded gas_price of the wrapped ethereum transaction', ['0x4a817c800']),
    max_fee_per_gas: ethField('The hex encoded max_fee_per_gas of the wrapped ethereum transaction', ['0x5']),
    max_priority_fee_per_gas: ethField('The hex encoded max_priority_fee_per_gas of the wrapped ethereum transaction', ['0x100']),
    r: ethField('The hex encoded signature_r of the wrapped ethereum transaction', ['0xd693b532a80fed6392b428604171fb32fdbf953728a3a7ecc7d4062b1652c043']),
    s: ethField('The hex encoded signature_s of the wrapped ethereum transaction', ['0x24e9c602ac800b983b035700a14b23f78a253ab762deab5dc27e3555a750b355']),
    type: nullable(int32('The type of the wrapped ethereum transaction, 0 (Pre-Eip1559), 1 (Eip2930) or 2 (Post-Eip1559)', [2])),
    v: nullable(int64('The recovery_id of the wrapped ethereum transaction (the signature v of a type 0 transaction)', [1])),
    nonce: nullable(int64('The nonce of the wrapped ethereum transaction', [1])),
  };
}

const CONTRACT_RESULT_DETAILS: JsonSchema = {
  $id: 'ContractResultDetails',
  ...closedObject(detailedProperties(true), 'One contract function execution in full, with its logs and state changes'),
};

const NETWORK_CONTRACT_RESULT: JsonSchema = {
  $id: 'NetworkContractResult',
  ...closedObject(detailedProperties(false), 'A contract function execution with its block and Ethereum transaction (the items of /api/v1/contracts/results)'),
};

// ---------------------------------------------------------------------------------------------

const LOG_HEAD: Record<string, JsonSchema> = {
  address: { ...EVM_ADDRESS, description: 'The hex encoded EVM address of the contract' },
  bloom: BLOOM('The hex encoded bloom filter of the contract log'),
  contract_id: ref('EntityId'),
  data: hex('The hex encoded data of the contract log', ['0x00000000000000000000000000000000000000000000000000000000000000fa']),
  index: int32('The index of the contract log in the chain of logs for an execution', [0]),
  topics: {
    type: 'array',
    description: 'A list of hex encoded topics associated with this log event',
    maxItems: 4,
    items: { type: 'string', pattern: '^0x[0-9a-f]{64,}$' },
    examples: [['0xf4757a49b326036464bec6fe419a4ae38c8a02ce3e68bf0809674f6aab8ad300']],
  },
};

const CONTRACT_RESULT_LOG: JsonSchema = { $id: 'ContractResultLog', ...closedObject(LOG_HEAD, 'A log of a contract function execution') };

const CONTRACT_LOG: JsonSchema = {
  $id: 'ContractLog',
  ...closedObject(
    {
      ...LOG_HEAD,
      block_hash: BLOCK_HASH,
      block_number: BLOCK_NUMBER,
      root_contract_id: { ...nullable(ENTITY_ID), description: 'The executed contract that created this contract log' },
      timestamp: ref('Timestamp'),
      transaction_hash: hex('A hex encoded transaction hash', ['0x397022d1e5baeb89d0ab66e6bf602640610e6fb7e55d78638db861e2c6339aa9']),
      transaction_index: nullable(int32('The position of the transaction in the block', [1])),
    },
    'A contract log with its transaction and block',
  ),
};

const CONTRACT_RESULT_STATE_CHANGE: JsonSchema = {
  $id: 'ContractResultStateChange',
  ...closedObject(
    {
      address: ref('EvmAddress'),
      contract_id: ref('EntityId'),
      slot: WORD('The hex encoded storage slot changed.'),
      value_read: WORD('The hex encoded value read from the storage slot.'),
      value_written: nullable(WORD('The hex encoded value written to the slot. `null` implies no value written.')),
    },
    'A storage slot an execution read and possibly wrote',
  ),
};

const CONTRACT_STATE: JsonSchema = {
  $id: 'ContractState',
  ...closedObject(
    {
      address: ref('EvmAddress'),
      contract_id: ref('EntityId'),
      timestamp: ref('Timestamp'),
      slot: WORD('The hex encoded storage slot.'),
      value: WORD('The hex encoded value of the slot.'),
    },
    'A storage slot of a contract and its value',
  ),
};

// ---------------------------------------------------------------------------------------------

const ACTION_REQUIRED = [
  'call_depth', 'caller', 'caller_type', 'from', 'gas', 'gas_used', 'index', 'input', 'recipient', 'recipient_type', 'result_data',
  'timestamp', 'to', 'value',
];

const CONTRACT_ACTION: JsonSchema = {
  $id: 'ContractAction',
  type: 'object',
  description: 'One step of the call trace of a transaction',
  required: ACTION_REQUIRED,
  additionalProperties: false,
  properties: {
    call_depth: int32('The nesting depth of the call', [1]),
    call_operation_type: {
      type: 'string',
      enum: ['UNKNOWN', 'CALL', 'CALLCODE', 'DELEGATECALL', 'STATICCALL', 'CREATE', 'CREATE2'],
      description: 'The type of the call operation (absent for an unknown code)',
      examples: ['CALL'],
    },
    call_type: {
      type: 'string',
      enum: ['NO_ACTION', 'CALL', 'CREATE', 'PRECOMPILE', 'SYSTEM'],
      description: 'The type of the call (absent when not recorded)',
      examples: ['CALL'],
    },
    caller: ref('EntityId'),
    caller_type: {
      type: ['string', 'null'],
      enum: ['ACCOUNT', 'CONTRACT', 'FILE', 'TOPIC', 'TOKEN', 'SCHEDULE', 'UNKNOWN', null],
      description: 'The entity type of the caller',
      examples: ['ACCOUNT'],
    },
    from: { ...EVM_ADDRESS, description: 'The EVM address of the caller' },
    gas: int64('Gas cost in tinybars', [50000]),
    gas_used: int64('Gas used in tinybars', [50000]),
    index: int32('The position of the action within the ordered list of actions', [0]),
    input: hex('The hex encoded input data', ['0x123456']),
    recipient: ref('EntityIdNullable'),
    recipient_type: { type: ['string', 'null'], enum: ['ACCOUNT', 'CONTRACT', null], description: 'The entity type of the recipient', examples: ['ACCOUNT'] },
    result_data: hex('The hex encoded result data', ['0x123456']),
    result_data_type: {
      type: 'string',
      enum: ['OUTPUT', 'REVERT_REASON', 'ERROR'],
      description: 'The type of the result data (absent for an unknown code)',
      examples: ['OUTPUT'],
    },
    timestamp: ref('Timestamp'),
    to: { ...nullable(EVM_ADDRESS), description: 'The EVM address of the recipient' },
    value: int64('The value of the transaction in tinybars', [50000]),
  },
};

// ---------------------------------------------------------------------------------------------

/** A listing's body: `{"<key>": [items], "links": {"next": ...}}`. */
const listing = (id: string, key: string, item: string, description: string): JsonSchema => ({
  $id: id,
  ...closedObject({ [key]: { type: 'array', items: ref(item) }, links: ref('Links') }, description),
});

/** Every shared component schema, each under its `$id`. */
export const COMPONENTS: readonly JsonSchema[] = [
  { $id: 'EntityId', ...ENTITY_ID },
  { $id: 'EntityIdNullable', ...nullable(ENTITY_ID) },
  { $id: 'EvmAddress', ...EVM_ADDRESS },
  { $id: 'EvmAddressNullable', ...nullable(EVM_ADDRESS) },
  { $id: 'Timestamp', ...TIMESTAMP },
  { $id: 'TimestampNullable', ...nullable(TIMESTAMP) },
  KEY,
  TIMESTAMP_RANGE,
  LINKS,
  ERROR,
  CONTRACT,
  CONTRACT_RESPONSE,
  listing('ContractsResponse', 'contracts', 'Contract', 'A page of contracts'),
  CONTRACT_RESULT,
  listing('ContractResultsResponse', 'results', 'ContractResult', 'A page of contract results'),
  NETWORK_CONTRACT_RESULT,
  listing('NetworkContractResultsResponse', 'results', 'NetworkContractResult', 'A page of contract results of every contract'),
  CONTRACT_RESULT_DETAILS,
  CONTRACT_RESULT_LOG,
  CONTRACT_LOG,
  listing('ContractLogsResponse', 'logs', 'ContractLog', 'A page of contract logs'),
  CONTRACT_RESULT_STATE_CHANGE,
  CONTRACT_STATE,
  listing('ContractStateResponse', 'state', 'ContractState', 'A page of storage slots'),
  CONTRACT_ACTION,
  listing('ContractActionsResponse', 'actions', 'ContractAction', 'A page of the call trace'),
];
