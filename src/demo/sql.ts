import { createHash } from 'node:crypto';
import { FIRST_BLOCK, SEED, T0 } from './network.ts';

/**
 * SQL building blocks of the generator: literals for values computed in TypeScript, and the pg_temp
 * helper functions every statement uses (pseudo-random numbers and hashes of row keys and SEED, ABI
 * words, stripped topics, block bounds and hashes).
 */

/** A bytea literal (or null). */
export const bytes = (b: Buffer | null | undefined): string => (b == null ? 'null' : `'\\x${b.toString('hex')}'::bytea`);
/** A text literal (or null). */
export const text = (s: string | null): string => (s === null ? 'null' : `'${s.replace(/'/g, "''")}'`);
/** The bytes without leading zero bytes (one byte kept), as the importer stores topics. */
export const strip = (b: Buffer): Buffer => {
  let i = 0;
  while (i < b.length - 1 && b[i] === 0) i++;
  return b.subarray(i);
};

/** The EVM address alias of an ECDSA account, exactly as the SQL of tables.ts derives it (pg_temp.h(id, 21)). */
export function accountEvmAddress(id: number): Buffer {
  const input = Buffer.alloc(16);
  input.writeBigInt64BE(BigInt(id), 0);
  input.writeInt32BE(21, 8);
  input.writeInt32BE(SEED, 12);
  return createHash('sha256').update(input).digest().subarray(0, 20);
}

/** The pg_temp helper functions (temporary: they vanish with the session). */
export function helpers(seed: number = SEED): string[] {
  return [
    `create function pg_temp.u(n bigint, salt int) returns float8 language sql immutable as
       $$ select ((hashint8extended(n, ${seed}::bigint * 1000003 + salt) >> 11) & 9007199254740991)::float8 / 9007199254740992.0 $$`,
    `create function pg_temp.hi(n bigint, salt int) returns bigint language sql immutable as
       $$ select hashint8extended(n, ${seed}::bigint * 1000003 + salt) & 1048575 $$`,
    `create function pg_temp.h(n bigint, salt int) returns bytea language sql immutable as
       $$ select sha256(int8send(n) || int4send(salt) || int4send(${seed})) $$`,
    `create function pg_temp.h48(n bigint, salt int) returns bytea language sql immutable as
       $$ select sha384(int8send(n) || int4send(salt) || int4send(${seed})) $$`,
    `create function pg_temp.w(v bigint) returns bytea language sql immutable as
       $$ select '\\x000000000000000000000000000000000000000000000000'::bytea || int8send(v) $$`,
    `create function pg_temp.wa(a bytea) returns bytea language sql immutable as
       $$ select '\\x000000000000000000000000'::bytea || a $$`,
    `create function pg_temp.lz(num bigint) returns bytea language sql immutable as
       $$ select '\\x000000000000000000000000'::bytea || int8send(num) $$`,
    // topics are stored as the importer stores them: leading zero bytes removed, at least one byte kept
    `create function pg_temp.strip(b bytea) returns bytea language sql immutable as
       $$ select coalesce(nullif(ltrim(b, '\\x00'::bytea), '\\x'::bytea), '\\x00'::bytea) $$`,
    `create function pg_temp.tint(v bigint) returns bytea language sql immutable as
       $$ select pg_temp.strip(int8send(v)) $$`,
    // Java's BigInteger.toByteArray() of a non-negative integer (minimal two's complement: a leading 00 when the top
    // bit is set, 00 for zero), as the importer stores the tinybar amounts of Ethereum transactions
    `create function pg_temp.jbig(v bigint) returns bytea language sql immutable as
       $$ select case when get_byte(pg_temp.tint(v), 0) >= 128 then '\\x00'::bytea || pg_temp.tint(v) else pg_temp.tint(v) end $$`,
    // block i (2 s slot i after T0): consensus start/end a few ms inside the slot, 96-hex hash
    `create function pg_temp.bs(i bigint) returns bigint language sql immutable as
       $$ select ${T0}::bigint + i * 2000000000 + (hashint8extended(i, ${seed} + 1) & 1048575) * 4 $$`,
    `create function pg_temp.be(i bigint) returns bigint language sql immutable as
       $$ select ${T0}::bigint + (i + 1) * 2000000000 - 1 - (hashint8extended(i, ${seed} + 2) & 1048575) * 4 $$`,
    // transaction_hash.distribution_id: the first two bytes as a signed 16-bit integer
    `create function pg_temp.dist(h bytea) returns smallint language sql immutable as
       $$ select ((get_byte(h, 0) << 8) + get_byte(h, 1) - case when get_byte(h, 0) >= 128 then 65536 else 0 end)::smallint $$`,
    `create function pg_temp.bhash(i bigint, salt int) returns text language sql immutable as
       $$ select encode(sha384(int8send(${FIRST_BLOCK} + i) || int4send(salt) || int4send(${seed})), 'hex') $$`,
  ];
}
