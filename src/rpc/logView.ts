/**
 * A log as the Hiero JSON-RPC relay v0.69.3 shows it (its `Log` model, built from the mirror node's
 * log item): keys in its order, quantities as 0x-hex without leading zeros, the block hash cut to
 * 32 bytes, `removed` always false (a Hedera block is final). Made from the logs listings' own
 * item (src/contracts/logs/view.ts), so that the rows and rules are the REST routes'.
 */
import { logAddress } from '../contracts/common/log.ts';
import type { LogRow, RecordFileRow } from '../contracts/logs/rows.ts';
import { blockHashOf, blockNumberOf } from '../contracts/common/blockFields.ts';
import type { LogView } from '../contracts/logs/view.ts';
import { hexPadded } from '../format/hex.ts';

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

/**
 * The JSON texts of a page's logs straight from their rows and record files: each the listings' item
 * (logView) as rpcLogJson writes it, by the same rules, without making the fields the relay does not
 * show (bloom, ids, timestamp). The parts that logs share are made once a page: the address of each
 * contract, the block hash and number of each record file (the logs of a block share its file:
 * blockOf answers the same object for them). The text is written out here in one template, not from
 * rpcLogJson's pieces: built from them (ownPart, a topics helper) it took 6-20 % more server CPU for
 * 1,000 blocks in two A/B runs. test/format/encoders.test.ts checks that both give the same text for
 * random pages.
 */
export function rpcLogJsonsOf(rows: readonly LogRow[], blockOf: (row: LogRow) => RecordFileRow | undefined): string[] {
  const addresses = new Map<string, string>();
  const blocks = new Map<RecordFileRow | undefined, string>();
  const texts: string[] = new Array(rows.length);
  for (let i = 0; i < rows.length; i++) {
    const row = rows[i]!;
    let address = addresses.get(row.contract_id);
    if (address === undefined) addresses.set(row.contract_id, (address = `{"address":${JSON.stringify(logAddress(row))},`));
    const block = blockOf(row);
    let blockPart = blocks.get(block);
    if (blockPart === undefined) {
      const number = blockNumberOf(block);
      blockPart = `"blockHash":${JSON.stringify(hash32(blockHashOf(block)))},"blockNumber":${number === null ? 'null' : `"${quantity(number)}"`},`;
      blocks.set(block, blockPart);
    }
    let topics = '';
    for (const topic of [row.topic0, row.topic1, row.topic2, row.topic3]) {
      if (topic !== null) topics += topics === '' ? `"${hexPadded(topic, 64)}"` : `,"${hexPadded(topic, 64)}"`;
    }
    const transactionIndex = row.transaction_index === null ? 'null' : `"${quantity(row.transaction_index)}"`;
    texts[i] =
      `${address}${blockPart}"data":"${hexPadded(row.data, 64)}","logIndex":"${quantity(row.index)}","removed":false,"topics":[${topics}],` +
      `"transactionHash":"${hash32(hexPadded(row.transaction_hash, 2))}","transactionIndex":${transactionIndex}}`;
  }
  return texts;
}
