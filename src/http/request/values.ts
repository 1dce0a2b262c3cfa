/**
 * Parsers for the values of query and path parameters: pure functions from the text a client sent
 * to a typed value, or undefined when the text is not a valid value of that kind. Each accepts the
 * forms the reference accepts, leniency included (noted per parser).
 */
import type { Order } from '../../db/sql.ts';
import type { Config } from '../../config/config.ts';
import { INT64_MAX, MAX_NUM, MAX_REALM, MAX_SHARD, encodeEntityId, isHex40, longZeroToId } from '../../format/entityId.ts';

const TIMESTAMP = /^(\d{1,10})(?:\.(\d{1,9}))?$/;

/** `seconds[.fraction]` (up to 10 and 9 digits) as nanoseconds, which may exceed int64; else undefined. */
export function parseTimestampNs(text: string): bigint | undefined {
  const match = TIMESTAMP.exec(text);
  return match ? BigInt(match[1]! + (match[2] ?? '').padEnd(9, '0')) : undefined;
}

/** `seconds[.fraction]` (up to 10 and 9 digits) as nanoseconds, within int64; else undefined. */
export function parseTimestamp(text: string): bigint | undefined {
  const ns = parseTimestampNs(text);
  return ns !== undefined && ns <= INT64_MAX ? ns : undefined;
}

/** `^\d{1,19}$` read as a signed 64-bit integer (a 19-digit overflow wraps negative), if >= min. */
export function parseInt64(text: string, min = 0n): bigint | undefined {
  if (!/^\d{1,19}$/.test(text)) return undefined;
  const n = BigInt(text);
  return n <= INT64_MAX && n >= min ? n : undefined;
}

/**
 * The reference's lax numeric test of `index`: parseFloat is a number and the whole text is a
 * finite number >= 0. Texts such as `1.5`, `1e0`, `0x1` or ` 1` pass.
 */
export function isLaxNumber(text: string): boolean {
  const n = Number(text);
  return !Number.isNaN(Number.parseFloat(text)) && Number.isFinite(n) && n >= 0;
}

/** PostgreSQL's whitespace around an integer literal (isspace in the C locale). */
const PG_INTEGER = /^[ \t\n\r\v\f]*([+-]?\d+)[ \t\n\r\v\f]*$/;

/**
 * The integer PostgreSQL reads from `text` as an int4 (the reference binds such values as text):
 * optional whitespace around an optionally signed decimal, within 0..2^31-1; else undefined.
 * So ` 1`, `1 `, `+1` and `007` are 1 as in the reference; `1.5`, `1e0`, `0x1` are not integers.
 */
export function parsePgInt4(text: string): number | undefined {
  const match = PG_INTEGER.exec(text);
  if (!match) return undefined;
  const n = Number(match[1]);
  return n >= 0 && n <= 2147483647 ? Math.abs(n) : undefined;
}

/** `limit`: a positive int64 (`parseInt64 >= 1`), capped at `max`. */
export function parseLimit(text: string, max: number): number | undefined {
  const n = parseInt64(text, 1n);
  if (n === undefined) return undefined;
  return n > BigInt(max) ? max : Number(n);
}


/** `order`: asc or desc (the query parser has lower-cased the value). */
export const parseOrder = (text: string): Order | undefined => (text === 'asc' || text === 'desc' ? text : undefined);

/** `true`/`false`, any case. */
export function parseBoolean(text: string): boolean | undefined {
  const lower = text.toLowerCase();
  return lower === 'true' ? true : lower === 'false' ? false : undefined;
}

const ENTITY_ID = /^(\d{1,4}\.)?\d{1,5}\.\d{1,12}$/;
const ENCODED_ID = /^-?\d{1,19}$/;
const EVM_ADDRESS = /^(0x)?[0-9A-Fa-f]{40}$/;

/** `[shard.]realm.num` as the reference's syntax check sees it (4, 5 and 12 digits). */
export const isEntityIdSyntax = (text: string): boolean => ENTITY_ID.test(text);
/** A signed integer of 1-19 digits (an encoded id or an entity num). */
export const isEncodedIdSyntax = (text: string): boolean => ENCODED_ID.test(text);
/** 40 hex digits with an optional lower-case `0x`. */
export const isEvmAddressSyntax = (text: string): boolean => EVM_ADDRESS.test(text);

/** The 40 hex digits of an EVM address (lower-case `0x` removed, case kept), or undefined. */
export function parseEvmAddress(text: string): string | undefined {
  if (!EVM_ADDRESS.test(text)) return undefined;
  return text.startsWith('0x') ? text.slice(2) : text;
}

/**
 * "shard.realm.num" / "realm.num" / "[shard.][realm.]<long-zero hex>" as an encoded id, within the
 * entity id limits (shard 1023, realm 65535, num 2^38-1); a long-zero address must be of the
 * configured shard and realm. Undefined when the text is not a valid id of those forms.
 */
export function parseDottedId(text: string, config: Config): bigint | undefined {
  const pieces = text.split('.');
  if (pieces.length > 3) return undefined;
  const last = pieces[pieces.length - 1]!;
  const prefix = pieces.slice(0, -1);
  const shardText = prefix.length === 2 ? prefix[0]! : undefined;
  const realmText = prefix.length >= 1 ? prefix[prefix.length - 1]! : undefined;
  if ((shardText !== undefined && !/^\d{1,10}$/.test(shardText)) || (realmText !== undefined && !/^\d{1,10}$/.test(realmText))) {
    return undefined;
  }
  const shard = shardText === undefined ? config.common.shard : BigInt(shardText);
  const realm = realmText === undefined ? config.common.realm : BigInt(realmText);
  if (isHex40(last)) {
    const id = longZeroToId(last, config.common.shard, config.common.realm);
    if (id === undefined || shard !== config.common.shard || realm !== config.common.realm) return undefined;
    return id;
  }
  if (!/^\d{1,12}$/.test(last)) return undefined;
  const num = BigInt(last);
  if (shard > MAX_SHARD || realm > MAX_REALM || num > MAX_NUM) return undefined;
  return encodeEntityId(shard, realm, num);
}

/** An entity num of the configured shard and realm (`from=1001`), within the num limit. */
export function parseEntityNum(text: string, config: Config): bigint | undefined {
  if (!/^\d{1,12}$/.test(text)) return undefined;
  const num = BigInt(text);
  return num <= MAX_NUM ? encodeEntityId(config.common.shard, config.common.realm, num) : undefined;
}

/** A signed 64-bit encoded id (`274877906945` is 0.1.1). */
export function parseEncodedId(text: string): bigint | undefined {
  if (!ENCODED_ID.test(text)) return undefined;
  const id = BigInt(text);
  return id <= INT64_MAX && id >= -INT64_MAX - 1n ? id : undefined;
}

const HASH_32 = /^(0x)?[0-9A-Fa-f]{64}$/;
const HASH_32_OR_48 = /^(0x)?([0-9A-Fa-f]{64}|[0-9A-Fa-f]{96})$/;

/** A 32-byte hash (64 hex digits, optional lower-case `0x`, any case) as bytes. */
export const parseHash32 = (text: string): Buffer | undefined =>
  HASH_32.test(text) ? Buffer.from(text.replace(/^0x/, ''), 'hex') : undefined;

/** `^(0x)?(64 or 96 hex digits)$`: a 32-byte hash or prefix, or a 48-byte hash. */
export const isHash32Or48 = (text: string): boolean => HASH_32_OR_48.test(text);

/** The hex digits of a 32- or 48-byte hash with the lower-case `0x` removed, case kept. */
export const hashDigits = (text: string): string => (text.startsWith('0x') ? text.slice(2) : text);

/**
 * `block.number`: decimal `^\d{1,19}$` within int64, or lower-case `0x` hex read with JavaScript's
 * lenient parseInt (`0x1Z` is 1) whose result, printed as a JavaScript number, is a decimal
 * within int64 (values beyond that cannot be a block: invalid here, 503 in the reference).
 */
export function parseBlockNumber(text: string): bigint | undefined {
  const decimal = parseInt64(text);
  if (decimal !== undefined) return decimal;
  if (!text.startsWith('0x')) return undefined;
  return parseInt64(String(Number.parseInt(text, 16)));
}

const TOPIC = /^(0x)?[0-9A-Fa-f]{1,64}$/;

/** A topic or slot value: 1-64 hex digits, optional lower-case `0x`. */
export const isHex64 = (text: string): boolean => TOPIC.test(text);

/**
 * A 1-64 hex digit value as the importer stores topics and state-change slots: leading zeros
 * removed, odd length padded with one `0` (all zeros: empty bytes).
 */
export function trimmedBytes(text: string): Buffer {
  let digits = text.replace(/^(0x)?0*/, '');
  if (digits.length % 2 !== 0) digits = `0${digits}`;
  return Buffer.from(digits, 'hex');
}

/** A 1-64 hex digit value left-padded to 32 bytes (contract_state.slot). */
export const paddedBytes32 = (text: string): Buffer => Buffer.from(text.replace(/^0x/, '').padStart(64, '0'), 'hex');

const TRANSACTION_ID = /^(\d+)\.(\d+)\.(\d+)-(\d{1,19})-(\d{1,9})$/;

export interface TransactionId {
  /** The payer as typed, `shard.realm.num`. */
  entity: string;
  /** The payer's encoded id, undefined when it is not a valid entity id. */
  payer: bigint | undefined;
  /** Valid start in ns: seconds followed by the nanos left-padded to 9 digits. */
  validStartNs: bigint;
}

/**
 * `shard.realm.num-seconds-nanos` (the only form the reference accepts), or undefined. Seconds
 * are a signed 64-bit value (leading zeros allowed; an overflow is not a transaction id).
 */
export function parseTransactionId(text: string, config: Config): TransactionId | undefined {
  const match = TRANSACTION_ID.exec(text);
  if (!match) return undefined;
  const seconds = BigInt(match[4]!);
  if (seconds > INT64_MAX) return undefined;
  const entity = `${match[1]}.${match[2]}.${match[3]}`;
  const payer = /^\d{1,4}\.\d{1,5}\.\d{1,12}$/.test(entity) ? parseDottedId(entity, config) : undefined;
  return { entity, payer, validStartNs: BigInt(`${seconds}${match[5]!.padStart(9, '0')}`) };
}

export { isHex40 };
