/**
 * The {contractIdOrAddress} path parameter: the syntax check, then
 * either an entity id or an opaque (create2) EVM address still to be looked up.
 */
import type { Config } from '../../config/config.ts';
import { isHex40, longZeroToId } from '../../format/entityId.ts';
import { badRequest } from './errors.ts';
import { invalidEntityId, invalidParameter } from './messages.ts';
import { parseDottedId, parseEncodedId } from './values.ts';

/** A contract named by an encoded id, or by an opaque EVM address with the prefixes as typed. */
export type ContractRef =
  | { kind: 'id'; id: bigint }
  | { kind: 'evm'; shard: string | null; realm: string | null; /** the 40 hex digits as typed */ hex: string };

/** The path segment after the syntax check, with a leading lower-case "0x" removed, case kept. */
export interface ContractPath {
  text: string;
  pieces: string[];
}

const SYNTAX = [
  /^(\d{1,4}\.)?\d{1,5}\.\d{1,12}$/,
  /^-?\d{1,19}$/,
  /^(0x)?[A-Fa-f0-9]{40}$/,
  /^(\d{1,4}\.)?(\d{1,5}\.)?[A-Fa-f0-9]{40}$/,
];

/** True when the segment has one of the four accepted shapes. */
export const isContractPathSyntax = (value: string): boolean => SYNTAX.some((re) => re.test(value));

/** Checks the segment's syntax (400 `Invalid parameter: contractid`). */
export function parseContractPath(value: string): ContractPath {
  if (!isContractPathSyntax(value)) throw badRequest(invalidParameter('contractid'));
  const text = value.startsWith('0x') ? value.slice(2) : value;
  return { text, pieces: text.split('.') };
}

/** The create2 reference when the last piece is an opaque (not long-zero) address, else undefined. */
function evmRef(path: ContractPath, config: Config): ContractRef | undefined {
  const last = path.pieces[path.pieces.length - 1]!;
  if (!isHex40(last) || longZeroToId(last, config.common.shard, config.common.realm) !== undefined) return undefined;
  const prefix = path.pieces.slice(0, -1);
  return {
    kind: 'evm',
    shard: prefix.length === 2 ? prefix[0]! : null,
    realm: prefix.length >= 1 ? prefix[prefix.length - 1]! : null,
    hex: last,
  };
}

/**
 * The contract of GET /contracts/{id}: missing pieces filled with the configured shard and realm,
 * a bare integer being the num; failure is 400 `Invalid entity ID "<joined>"`.
 */
export function contractLookupRef(path: ContractPath, config: Config): ContractRef {
  const evm = evmRef(path, config);
  if (evm !== undefined) return evm;
  const pieces = [...path.pieces];
  if (pieces.length === 1) pieces.unshift(String(config.common.shard), String(config.common.realm));
  else if (pieces.length === 2) pieces.unshift(String(config.common.shard));
  const joined = pieces.join('.');
  const id = parseDottedId(joined, config);
  if (id === undefined) throw badRequest(invalidEntityId(joined));
  return { kind: 'id', id };
}

/**
 * The contract of the routes under /contracts/{id}/ (results, logs, state, results/{timestamp}):
 * dotted forms and 40/42-character addresses are ids, anything else an encoded 64-bit id. Failure
 * is 400 `Invalid parameter: contractid`. An id needs no lookup: an unknown one lists nothing.
 */
export function contractListingRef(path: ContractPath, config: Config): ContractRef {
  const evm = evmRef(path, config);
  if (evm !== undefined) return evm;
  const text = path.text;
  const dotted = text.includes('.') || text.length === 40 || text.length === 42;
  const id = dotted ? parseDottedId(text, config) : parseEncodedId(text);
  if (id === undefined) throw badRequest(invalidParameter('contractid'));
  return { kind: 'id', id };
}
