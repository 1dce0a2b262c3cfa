/**
 * The parameters of the methods served here, checked as the relay v0.69.3's validator checks them
 * (its types `filter`, `hex`, `blockNumber`, `blockHash`, `addressFilter`, `topics`, `topicHash`;
 * the same tests on the same values, the same messages). Like the relay's, the tests apply a regular
 * expression to the value's string form, so an array of one valid string passes where a string does.
 */
import { RpcError, rpcErrors } from './errors.ts';

const HASH_ERROR = 'Expected 0x prefixed string representing the hash (32 bytes)';
const ADDRESS_ERROR = 'Expected 0x prefixed string representing the address (20 bytes)';

interface TypeCheck {
  test: (value: unknown) => boolean;
  error: string;
}

const matches = (re: RegExp, value: unknown): boolean => re.test(String(value));
const ADDRESS = /^0[xX][a-fA-F0-9]{40}$/;
const HASH = /^0[xX][a-fA-F0-9]{64}$/;
const BLOCK_TAGS = ['earliest', 'latest', 'pending', 'finalized', 'safe'];

export const TYPES = {
  hex: { test: (v) => matches(/^0[xX][a-fA-F0-9]*$/, v), error: 'Expected 0x prefixed hexadecimal value' },
  blockHash: { test: (v) => matches(HASH, v), error: `Expected ${HASH_ERROR} of a block` },
  blockNumber: {
    test: (v) => (matches(/^0[xX]([1-9A-Fa-f][0-9A-Fa-f]{0,13}|0)$/, v) && Number.MAX_SAFE_INTEGER >= Number(v)) || BLOCK_TAGS.includes(v as string),
    error: 'Expected 0x prefixed hexadecimal block number, or the string "latest", "earliest" or "pending"',
  },
  addressFilter: {
    test: (v) => (Array.isArray(v) ? v.flat().every((a) => matches(ADDRESS, a)) : matches(ADDRESS, v)),
    error: `${ADDRESS_ERROR} or an array of addresses`,
  },
  topics: {
    test: (v) => Array.isArray(v) && v.flat().every((t) => t === null || matches(HASH, t)),
    error: `Expected an array or array of arrays containing ${HASH_ERROR} of a topic`,
  },
} satisfies Record<string, TypeCheck>;

type Property = keyof typeof TYPES;

/** The value as the relay quotes it in a message: objects (arrays, null) as JSON, the rest as text. */
const quoted = (value: unknown): string => (typeof value === 'object' ? JSON.stringify(value) : String(value));

const isPlainObject = (value: unknown): value is Record<string, unknown> => Object.prototype.toString.call(value) === '[object Object]';

/** Checks an object's known properties in order (each one present, null included, must pass its type). */
function checkObject(object: Record<string, unknown>, name: string, properties: Array<[string, Property]>): void {
  const known = properties.map(([key]) => key);
  const unknown = Object.keys(object).find((key) => !known.includes(key));
  if (unknown !== undefined) throw rpcErrors.invalidParameter(`'${unknown}' for ${name}`, 'Unknown parameter');
  for (const [key, type] of properties) {
    const value = object[key];
    if (value !== undefined && !TYPES[type].test(value)) {
      throw rpcErrors.invalidParameter(`'${key}' for ${name}`, `${TYPES[type].error}, value: ${quoted(value)}`);
    }
  }
}

/** How much a filter may ask for (rpc.maxAddresses, rpc.maxTopicValues; at most 4 topic positions, as the EVM has). */
export interface FilterLimits {
  maxAddresses: number;
  maxTopicValues: number;
}

/** Topic positions of a log: topic0 to topic3. */
export const MAX_TOPICS = 4;

/**
 * The sizes of a filter's address and topics, checked before any of their values is looked at (an
 * address list of 20,000 is refused by its count, not after 20,000 tests and look-ups). Counts one
 * level of nesting, as the relay's checks flatten one (`address.flat()`); a deeper array fails its
 * type check after. Not the relay's: it has no such limit (docs/compatibility.md).
 */
function checkSizes(object: Record<string, unknown>, name: string, limits: FilterLimits): void {
  const { address, topics } = object;
  if (Array.isArray(address)) {
    let count = 0;
    for (const item of address) count += Array.isArray(item) ? item.length : 1;
    if (count > limits.maxAddresses) throw rpcErrors.invalidParameter(`'address' for ${name}`, `Expected at most ${limits.maxAddresses} addresses, got ${count}`);
  }
  if (!Array.isArray(topics)) return;
  if (topics.length > MAX_TOPICS) throw rpcErrors.invalidParameter(`'topics' for ${name}`, `Expected at most ${MAX_TOPICS} topics, got ${topics.length}`);
  topics.forEach((position: unknown, n) => {
    if (Array.isArray(position) && position.length > limits.maxTopicValues) {
      throw rpcErrors.invalidParameter(`'topics' for ${name}`, `Expected at most ${limits.maxTopicValues} values in topic position ${n}, got ${position.length}`);
    }
  });
}

/** What eth_getLogs and eth_newFilter take (validated: the values have their types' forms). */
export interface LogFilterParams {
  blockHash?: string;
  fromBlock?: string;
  toBlock?: string;
  address?: string | string[];
  topics?: Array<string | null | Array<string | null>>;
}

/** The first parameter of eth_getLogs / eth_newFilter: the relay's `filter` type (FilterObject). */
export function filterParam(params: unknown, limits: FilterLimits): LogFilterParams {
  const value = paramAt(params, 0);
  if (value === undefined) throw rpcErrors.missingParameter(0);
  if (value === null) throw rpcErrors.invalidParameter(0, 'The value passed is not valid: null.');
  if (!isPlainObject(value)) throw rpcErrors.invalidParameter(0, `Expected FilterObject, value: ${quoted(value)}`);
  if (value.blockHash && (value.toBlock || value.fromBlock)) throw rpcErrors.invalidParameter(0, "Can't use both blockHash and toBlock/fromBlock");
  checkSizes(value, 'FilterObject', limits);
  checkObject(value, 'FilterObject', [
    ['blockHash', 'blockHash'],
    ['fromBlock', 'blockNumber'],
    ['toBlock', 'blockNumber'],
    ['address', 'addressFilter'],
    ['topics', 'topics'],
  ]);
  return value as LogFilterParams;
}

/** The logs filter of eth_subscribe (the relay's EthSubscribeLogsParamsObject): address and topics only. */
export function subscribeLogsParam(value: unknown, limits: FilterLimits): Pick<LogFilterParams, 'address' | 'topics'> {
  if (typeof value !== 'object' || value === null) return {};
  // the relay keeps address and topics (defined) and checks those
  const kept = Object.fromEntries(Object.entries(value).filter(([key, v]) => v !== undefined && (key === 'address' || key === 'topics')));
  checkSizes(kept, 'EthSubscribeLogsParamsObject', limits);
  checkObject(kept, 'EthSubscribeLogsParamsObject', [
    ['address', 'addressFilter'],
    ['topics', 'topics'],
  ]);
  return kept as LogFilterParams;
}

/** The first parameter as the relay's required `hex` type (a filter id). */
export function hexParam(params: unknown): string {
  const value = paramAt(params, 0);
  if (value === undefined) throw rpcErrors.missingParameter(0);
  if (value === null) throw rpcErrors.invalidParameter(0, 'The value passed is not valid: null.');
  if (!TYPES.hex.test(value)) throw rpcErrors.invalidParameter(0, `${TYPES.hex.error}, value: ${quoted(value)}`);
  return String(value);
}

/** params[index] as the relay reads it (params may be any JSON value; null fails as the relay's does). */
export function paramAt(params: unknown, index: number): unknown {
  if (params === undefined) return undefined;
  if (params === null) throw new RpcError(-32603, "Error invoking RPC: Cannot read properties of null (reading '0')");
  return (params as Record<number, unknown>)[index];
}
