// Spec values to what PostgreSQL receives: the value encodings of shared/conformance/defaults.json
// (bytea, keys, aliases, entity ids, arrays), and the checks on a spec's row objects.

/** One row of a setup key, as written in the spec (or merged with its defaults). */
export type Row = Record<string, unknown>;

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
  throw new TypeError(`entity key must be a hex string or a byte array, got ${describeValue(value)}`);
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
  if (typeof value !== 'string') throw new TypeError(`alias must be a base32 string, got ${describeValue(value)}`);
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
      throw new RangeError(`${what}: ${describeValue(value)} is not an integer`, { cause: err });
    }
  }
  throw new TypeError(`${what}: ${describeValue(value)} is not an integer`);
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
    throw new TypeError(`entity id is required, got ${describeValue(value)}`);
  }
  if (typeof value !== 'string' && typeof value !== 'number' && typeof value !== 'bigint') {
    throw new TypeError(`invalid entity id ${describeValue(value)}`);
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
  throw new RangeError(`invalid entity id ${describeValue(value)}`);
}

/** transaction_hash.distribution_id: the first two hash bytes as a signed big-endian 16-bit integer. */
export function distributionId(hash: unknown): number {
  if (!Buffer.isBuffer(hash) || hash.length < 2) {
    throw new RangeError(`transaction hash must have at least 2 bytes, got ${describeValue(hash)}`);
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

/** A short description of a value, for error messages. */
export function describeValue(value: unknown): string {
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

/** `value` as a row object (a spec's row must be a JSON object). */
export function asRow(value: unknown, what: string): Row {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new TypeError(`${what} must be an object, got ${describeValue(value)}`);
  }
  return value as Row;
}

/** The rows of one setup key: [] when absent or null, else the array's objects. */
export function rowsOf(setup: Record<string, unknown>, key: string): Row[] {
  const value = setup[key];
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) throw new TypeError(`setup.${key} must be an array, got ${describeValue(value)}`);
  return value.map((row, i) => asRow(row, `setup.${key}[${i}]`));
}
