import pg from 'pg';
import type { HexBytes } from '../format/hex.ts';

const BYTEA_OID = 17;
const INT8_OID = 20;
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

/**
 * An `int8` value as its text, which is what node-postgres' own parser returns for every input: it
 * tests each value against a regular expression first and returns the same string either way, and
 * those tests were 3.5 % of this process's allocations under the bench mix (int8 columns are in
 * every row: timestamps, entity ids, gas).
 */
export const int8Text = (text: string): string => text;

/** The result parsers of the service's connections: node-postgres' own, but bytea as hex text and int8 as its text unchecked. */
export const typeParsers: pg.CustomTypesConfig = {
  getTypeParser: ((oid: number, format?: string) =>
    format === 'binary'
      ? pg.types.getTypeParser(oid, 'binary')
      : oid === BYTEA_OID
        ? byteaToHex
        : oid === INT8_OID
          ? int8Text
          : pg.types.getTypeParser(oid, format as 'text')) as pg.CustomTypesConfig['getTypeParser'],
};
