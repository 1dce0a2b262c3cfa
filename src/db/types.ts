import pg from 'pg';
import type { HexBytes } from '../format/hex.ts';

const BYTEA_OID = 17;
const parseByteaDefault = pg.types.getTypeParser(BYTEA_OID, 'text') as (text: string) => Buffer;

/**
 * A `bytea` value as lower-case hex digits without prefix. PostgreSQL sends `\x<hex>` (bytea_output
 * hex, which the service's sessions set); the digits are kept as they are instead of being decoded
 * into a Buffer that every view would encode back to hex. The escape format is still understood.
 */
export function byteaToHex(text: string): HexBytes {
  if (text.startsWith('\\x')) return text.slice(2);
  return parseByteaDefault(text).toString('hex');
}

/** The result parsers of the service's connections: node-postgres' own, but bytea as hex text. */
export const typeParsers: pg.CustomTypesConfig = {
  getTypeParser: ((oid: number, format?: string) =>
    oid === BYTEA_OID && format !== 'binary' ? byteaToHex : pg.types.getTypeParser(oid, format as 'text')) as pg.CustomTypesConfig['getTypeParser'],
};
