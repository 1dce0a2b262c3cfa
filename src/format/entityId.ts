/** Encoded entity ids: (shard << 54) | (realm << 38) | num, as a signed 64-bit integer. */
export const MAX_SHARD = 1023n;
export const MAX_REALM = 65535n;
export const MAX_NUM = 274877906943n; // 2^38 - 1
export const INT64_MAX = 9223372036854775807n;
export const INT64_MIN = -9223372036854775808n;

export function encodeEntityId(shard: bigint, realm: bigint, num: bigint): bigint {
  return BigInt.asIntN(64, (shard << 54n) | (realm << 38n) | num);
}

export interface EntityParts {
  shard: bigint;
  realm: bigint;
  num: bigint;
}

export function decodeEntityId(id: bigint): EntityParts {
  return {
    shard: (id >> 54n) & 0x3ffn,
    realm: (id >> 38n) & 0xffffn,
    num: id & MAX_NUM,
  };
}

/** 2^38: ids below it have shard 0 and realm 0, so the id is the entity number. */
const NUM_LIMIT = 274877906944;

/** The id as a plain number when it is one of shard 0, realm 0 (the common case), else undefined. */
function shardZeroNum(id: bigint | string): number | undefined {
  if (typeof id !== 'string') return undefined;
  const n = Number(id);
  return Number.isInteger(n) && n > 0 && n < NUM_LIMIT ? n : undefined;
}

/** "shard.realm.num", or null for a null or all-zero id. */
export function entityIdToString(id: bigint | string | null): string | null {
  if (id === null) return null;
  const plain = shardZeroNum(id);
  if (plain !== undefined) return `0.0.${plain}`;
  const value = typeof id === 'bigint' ? id : BigInt(id);
  if (value === 0n) return null;
  const { shard, realm, num } = decodeEntityId(value);
  return `${shard}.${realm}.${num}`;
}

/** Long-zero EVM address "0x" + shard(8 hex) + realm(16 hex) + num(16 hex); null for a null or zero id. */
export function longZeroAddress(id: bigint | string | null): string | null {
  if (id === null) return null;
  const plain = shardZeroNum(id);
  if (plain !== undefined) return `0x000000000000000000000000${plain.toString(16).padStart(16, '0')}`;
  const value = typeof id === 'bigint' ? id : BigInt(id);
  if (value === 0n) return null;
  const { shard, realm, num } = decodeEntityId(value);
  return `0x${shard.toString(16).padStart(8, '0')}${realm.toString(16).padStart(16, '0')}${num.toString(16).padStart(16, '0')}`;
}

const HEX40 = /^[0-9A-Fa-f]{40}$/;

export function isHex40(text: string): boolean {
  return HEX40.test(text);
}

/**
 * The id denoted by a 40-hex address if it is a long-zero address for the configured shard and realm
 * (first 4 bytes = shard, next 8 = realm, last 8 <= 2^38 - 1), else undefined (an opaque create2 address).
 */
export function longZeroToId(hex40: string, shard: bigint, realm: bigint): bigint | undefined {
  const addrShard = BigInt(`0x${hex40.slice(0, 8)}`);
  const addrRealm = BigInt(`0x${hex40.slice(8, 24)}`);
  const num = BigInt(`0x${hex40.slice(24)}`);
  if (addrShard !== shard || addrRealm !== realm || num > MAX_NUM) return undefined;
  return encodeEntityId(shard, realm, num);
}
