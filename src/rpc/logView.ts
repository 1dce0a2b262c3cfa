/**
 * A log as the Hiero JSON-RPC relay v0.69.3 shows it (its `Log` model, built from the mirror node's
 * log item): keys in its order, quantities as 0x-hex without leading zeros, the block hash cut to
 * 32 bytes, `removed` always false (a Hedera block is final). Made from the logs listings' own
 * item (src/contracts/logs/view.ts), so that the rows and rules are the REST routes'.
 */
import { logAddress } from '../contracts/common/log.ts';
import type { LogRow } from '../contracts/logs/rows.ts';
import type { ItemBlock } from '../db/blocks.ts';
import { blockHashOf, blockNumberOf } from '../contracts/common/blockFields.ts';
import type { LogView } from '../contracts/logs/view.ts';

/** A number as 0x-hex without leading zeros (the relay's numberTo0x). */
export const quantity = (value: number | bigint | string): string =>
  typeof value === 'number' && Number.isSafeInteger(value) ? `0x${value.toString(16)}` : `0x${BigInt(value).toString(16)}`;

/** `0x` and the first 32 bytes of a hash (the relay's toHash32). */
export const hash32 = (value: string): string => value.substring(0, 66);

/** What the relay's log shows of the logs listings' item. */
export type RpcLogFields = Pick<LogView, 'address' | 'block_hash' | 'block_number' | 'data' | 'index' | 'topics' | 'transaction_hash' | 'transaction_index'>;

/**
 * The log's JSON text. A null block number or transaction index (a log whose record file is not
 * known yet; never in a range resolved through record_file) is written as null, where the relay fails.
 */
export function rpcLogJson(log: RpcLogFields): string {
  let topics = '';
  for (const topic of log.topics) topics += topics === '' ? `"${topic}"` : `,"${topic}"`;
  const blockNumber = log.block_number === null ? 'null' : `"${quantity(log.block_number)}"`;
  const transactionIndex = log.transaction_index === null ? 'null' : `"${quantity(log.transaction_index)}"`;
  return (
    `{"address":${JSON.stringify(log.address)},"blockHash":${JSON.stringify(hash32(log.block_hash))},"blockNumber":${blockNumber},` +
    `"data":"${log.data}","logIndex":"${quantity(log.index)}","removed":false,"topics":[${topics}],` +
    `"transactionHash":"${hash32(log.transaction_hash)}","transactionIndex":${transactionIndex}}`
  );
}

/** ASCII text as its bytes (Latin-1 is UTF-8 below 0x80). */
const ascii = (text: string): Buffer => Buffer.from(text, 'latin1');

// the fixed text between a log's fields, in the relay's key order
const DATA = ascii('"data":"0x');
const LOG_INDEX = ascii('","logIndex":"0x');
const TOPICS = ascii('","removed":false,"topics":[');
const TRANSACTION_HASH = ascii('],"transactionHash":"0x');
const TRANSACTION_INDEX = ascii('","transactionIndex":');
const NULL = ascii('null');
const HEX_DIGITS = ascii('0123456789abcdef');
const [QUOTE, COMMA, ZERO, X, CLOSE] = [0x22, 0x2c, 0x30, 0x78, 0x7d];
/**
 * The most bytes of a log beyond its address and block parts and its data's and topics' digits: the
 * fixed text, two quantities (at most 16 characters: a safe integer in hex, or a sign and 8 digits)
 * with the transaction index's quotes and `0x`, a 64-digit hash, each topic's quotes, `0x` and comma,
 * and the closing brace.
 */
const FIXED_BOUND = DATA.length + LOG_INDEX.length + 16 + TOPICS.length + TRANSACTION_HASH.length + 64 + TRANSACTION_INDEX.length + 4 + 16 + 4 * 5 + 1;

/**
 * A page's logs as the bytes of their JSON texts, separated by commas (with `continued`, a comma
 * before the first too: the items after an earlier page's): each log as rpcLogJson writes the
 * listings' item (logView) for it, written straight from its row and record file into one buffer,
 * without making the fields the relay does not show (bloom, ids, timestamp) nor a string per log.
 * The parts that logs share are made once a page: the address of each contract, the block hash and
 * number of each record file (the logs of a block share its file: blockOf answers the same object
 * for them). Every character written is ASCII (hex digits, numbers, fixed keys), so Latin-1 is the
 * UTF-8 form. test/format/encoders.test.ts checks it against rpcLogJson(logView(...)) for random pages.
 *
 * Why not text: a template string per log, copied into the page's bytes, took 1.6 times the CPU of
 * this for pages of 1,000 logs (each log a rope of a dozen pieces, made flat, then copied), and made
 * the young generation's collections that much busier.
 */
export function rpcLogPageBytes(rows: readonly LogRow[], blockOf: (row: LogRow) => ItemBlock | undefined, continued = false): Buffer {
  const addresses = new Map<string, Buffer>();
  const blocks = new Map<ItemBlock | undefined, Buffer>();
  const heads: Buffer[] = new Array(rows.length * 2);
  let bound = rows.length;
  for (let i = 0; i < rows.length; i++) {
    const row = rows[i]!;
    let address = addresses.get(row.contract_id);
    if (address === undefined) addresses.set(row.contract_id, (address = ascii(`{"address":${JSON.stringify(logAddress(row))},`)));
    const block = blockOf(row);
    let blockPart = blocks.get(block);
    if (blockPart === undefined) {
      const number = blockNumberOf(block);
      blockPart = ascii(`"blockHash":${JSON.stringify(hash32(blockHashOf(block)))},"blockNumber":${number === null ? 'null' : `"${quantity(number)}"`},`);
      blocks.set(block, blockPart);
    }
    heads[2 * i] = address;
    heads[2 * i + 1] = blockPart;
    bound += address.length + blockPart.length + FIXED_BOUND + paddedLength(row.data);
    bound += paddedLength(row.topic0) + paddedLength(row.topic1) + paddedLength(row.topic2) + paddedLength(row.topic3);
  }
  const out = Buffer.allocUnsafe(bound);
  let at = 0;
  /** Hex digits left-padded with zeros to 64 (hexPadded's digits; none for null or empty). */
  const padded = (digits: string | null): void => {
    if (!digits) return;
    const zeros = 64 - digits.length;
    if (zeros > 0) {
      out.fill(ZERO, at, at + zeros);
      at += zeros;
    }
    at += out.write(digits, at, 'latin1');
  };
  /** A quantity's digits after its `0x` (the relay's numberTo0x). */
  const quantityDigits = (value: number): void => {
    if (value >= 0 && value <= 0xffffffff) {
      let digits = 1;
      for (let v = value >>> 4; v > 0; v >>>= 4) digits++;
      for (let j = at + digits - 1, v = value; j >= at; j--, v >>>= 4) out[j] = HEX_DIGITS[v & 15]!;
      at += digits;
    } else at += out.write(quantity(value).slice(2), at, 'latin1');
  };
  for (let i = 0; i < rows.length; i++) {
    const row = rows[i]!;
    if (continued || i > 0) out[at++] = COMMA;
    out.set(heads[2 * i]!, at);
    at += heads[2 * i]!.length;
    out.set(heads[2 * i + 1]!, at);
    at += heads[2 * i + 1]!.length;
    out.set(DATA, at);
    at += DATA.length;
    padded(row.data);
    out.set(LOG_INDEX, at);
    at += LOG_INDEX.length;
    quantityDigits(row.index);
    out.set(TOPICS, at);
    at += TOPICS.length;
    let first = true;
    for (const topic of [row.topic0, row.topic1, row.topic2, row.topic3]) {
      if (topic === null) continue;
      if (!first) out[at++] = COMMA;
      first = false;
      out[at++] = QUOTE;
      out[at++] = ZERO;
      out[at++] = X;
      padded(topic);
      out[at++] = QUOTE;
    }
    out.set(TRANSACTION_HASH, at);
    at += TRANSACTION_HASH.length;
    // hash32(hexPadded(hash, 2)): the first 32 bytes
    const hash = row.transaction_hash;
    if (hash) at += out.write(hash.length < 2 ? hash.padStart(2, '0') : hash, at, 64, 'latin1');
    out.set(TRANSACTION_INDEX, at);
    at += TRANSACTION_INDEX.length;
    if (row.transaction_index === null) {
      out.set(NULL, at);
      at += NULL.length;
    } else {
      out[at++] = QUOTE;
      out[at++] = ZERO;
      out[at++] = X;
      quantityDigits(row.transaction_index);
      out[at++] = QUOTE;
    }
    out[at++] = CLOSE;
  }
  return out.subarray(0, at);
}

/** The digits hexPadded(bytes, 64) writes after `0x`, at most. */
const paddedLength = (digits: string | null): number => (digits ? Math.max(digits.length, 64) : 0);
