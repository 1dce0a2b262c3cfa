/**
 * Byte arrays as the service handles them: `bytea` columns arrive from the database as lower-case hex
 * text without a prefix (see src/db/types.ts), never as Buffers, so rendering them is string work only.
 */
export type HexBytes = string;

/** "0x" + the hex digits; null or empty -> "0x". */
export function hex(bytes: HexBytes | null): string {
  return bytes ? `0x${bytes}` : '0x';
}

/** Hex left-padded with zeros to at least `digits` hex digits; null or empty -> "0x". */
export function hexPadded(bytes: HexBytes | null, digits: number): string {
  return bytes ? `0x${bytes.padStart(digits, '0')}` : '0x';
}

/** The bytes of hex digits (for the rare values that must be decoded, such as protobuf). */
export function hexToBytes(bytes: HexBytes | null): Buffer {
  return Buffer.from(bytes ?? '', 'hex');
}
