/** Byte-array renderings of the reference (all lower-case hex). */
type Bytes = Uint8Array | null | undefined;

const toHex = (bytes: Uint8Array): string => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('hex');

/** "0x" + hex of all bytes; null or empty -> "0x". */
export function hex(bytes: Bytes): string {
  return bytes && bytes.length > 0 ? `0x${toHex(bytes)}` : '0x';
}

/** Hex left-padded with zeros to at least `digits` hex digits; null or empty -> "0x". */
export function hexPadded(bytes: Bytes, digits: number): string {
  return bytes && bytes.length > 0 ? `0x${toHex(bytes).padStart(digits, '0')}` : '0x';
}

/** Plain hex of bytes without prefix (empty string for null/empty). */
export function rawHex(bytes: Bytes): string {
  return bytes && bytes.length > 0 ? toHex(bytes) : '';
}
