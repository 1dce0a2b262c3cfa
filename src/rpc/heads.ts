/**
 * newHeads: the header of each new block, as the relay's block object (its `Block` model, keys in its
 * order) with the fields a record file holds. The relay's newHeads notification is its
 * eth_getBlockByNumber('latest') with `"jsonrpc":"2.0"` appended; baseFeePerGas, receiptsRoot,
 * transactions and transactionsRoot need the fee schedule and every receipt of the block, which this
 * endpoint does not read: they are left out (docs/compatibility.md).
 */
import type { Block } from '../db/blocks.ts';
import { quantity } from './logView.ts';

const EMPTY_BLOOM = `0x${'0'.repeat(512)}`;
const ZERO_32 = `0x${'0'.repeat(64)}`;

/** The block header's JSON text (the relay's newHeads result, its `jsonrpc` key included). */
export function headJson(row: Block): string {
  const head = {
    timestamp: quantity(BigInt(row.consensus_start) / 1_000_000_000n),
    number: quantity(row.number),
    hash: `0x${row.hash.substring(0, 64)}`,
    difficulty: '0x0',
    extraData: '0x',
    gasLimit: quantity(30_000_000),
    gasUsed: quantity(row.gas_used === null || BigInt(row.gas_used) < 0n ? 0 : row.gas_used),
    logsBloom: row.logs_bloom === null || row.logs_bloom === '' ? EMPTY_BLOOM : `0x${row.logs_bloom}`,
    miner: `0x${'0'.repeat(40)}`,
    mixHash: ZERO_32,
    nonce: '0x0000000000000000',
    parentHash: `0x${row.prev_hash.substring(0, 64)}`,
    sha3Uncles: '0x1dcc4de8dec75d7aab85b567b6ccd41ad312451b948a7413f0a142fd40d49347',
    size: quantity(row.size ?? 0),
    stateRoot: '0x56e81f171bcc55a6ff8345e692c0f86e5b48e01b996cadc001622fb5e363b421',
    totalDifficulty: '0x0',
    uncles: [],
    withdrawals: [],
    withdrawalsRoot: ZERO_32,
    jsonrpc: '2.0',
  };
  return JSON.stringify(head);
}
