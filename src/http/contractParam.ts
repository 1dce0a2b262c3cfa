import type { Config } from '../config/config.ts';
import {
  INT64_MAX,
  INT64_MIN,
  MAX_NUM,
  MAX_REALM,
  MAX_SHARD,
  encodeEntityId,
  isHex40,
  longZeroToId,
} from '../format/entityId.ts';
import { badRequest, invalidParameter } from './errors.ts';

/** The path segment {contractIdOrAddress} after the syntax check and removal of a leading "0x". */
export interface ContractParam {
  /** Text after removal of a leading lower-case "0x", case preserved. */
  text: string;
  pieces: string[];
}

/** A contract reference that must be looked up by EVM address (create2 / opaque address). */
export interface EvmAddressRef {
  kind: 'evm';
  shard: string | null;
  realm: string | null;
  /** The 40 hex digits as typed. */
  hex: string;
}

const SYNTAX = [
  /^(\d{1,4}\.)?\d{1,5}\.\d{1,12}$/,
  /^-?\d{1,19}$/,
  /^(0x)?[A-Fa-f0-9]{40}$/,
  /^(\d{1,4}\.)?(\d{1,5}\.)?[A-Fa-f0-9]{40}$/,
];

/** Checks the path segment's syntax (400 `Invalid parameter: contractid`) and strips a leading "0x". */
export function parseContractParam(value: string): ContractParam {
  if (!SYNTAX.some((re) => re.test(value))) throw badRequest(invalidParameter('contractid'));
  const text = value.startsWith('0x') ? value.slice(2) : value;
  return { text, pieces: text.split('.') };
}

/** The create2 reference when the last piece is an opaque (not long-zero) address, else undefined. */
export function evmAddressRef(param: ContractParam, config: Config): EvmAddressRef | undefined {
  const last = param.pieces[param.pieces.length - 1]!;
  if (!isHex40(last) || longZeroToId(last, config.common.shard, config.common.realm) !== undefined) return undefined;
  const prefix = param.pieces.slice(0, -1);
  return {
    kind: 'evm',
    shard: prefix.length === 2 ? prefix[0]! : null,
    realm: prefix.length >= 1 ? prefix[prefix.length - 1]! : null,
    hex: last,
  };
}

/**
 * Parses "shard.realm.num" / "realm.num" / "[shard.][realm.]<long-zero hex>" with the entity id limits.
 * Returns undefined when the text is not a valid id of that form.
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

/**
 * Endpoint 1 id path: pieces filled with the configured shard/realm, joined and parsed;
 * failure is 400 `Invalid entity ID "<joined>"`.
 */
export function contractIdForLookup(param: ContractParam, config: Config): bigint {
  const pieces = [...param.pieces];
  if (pieces.length === 1) pieces.unshift(String(config.common.shard), String(config.common.realm));
  else if (pieces.length === 2) pieces.unshift(String(config.common.shard));
  const joined = pieces.join('.');
  const id = parseDottedId(joined, config);
  if (id === undefined) throw badRequest(`Invalid entity ID "${joined}"`);
  return id;
}

/**
 * Endpoints 2 and 3 id path: dotted forms and 40/42-character addresses are parsed as ids, anything
 * else is an encoded 64-bit id. Failure is 400 `Invalid parameter: contractid`.
 */
export function contractIdForListing(param: ContractParam, config: Config): bigint {
  const text = param.text;
  if (text.includes('.') || text.length === 40 || text.length === 42) {
    const id = parseDottedId(text, config);
    if (id === undefined) throw badRequest(invalidParameter('contractid'));
    return id;
  }
  if (!/^-?\d{1,19}$/.test(text)) throw badRequest(invalidParameter('contractid'));
  const id = BigInt(text);
  if (id > INT64_MAX || id < INT64_MIN) throw badRequest(invalidParameter('contractid'));
  return id;
}
