/** The rows of the log statements (query.ts, blocks.ts). */
import type { HexBytes } from '../../format/hex.ts';

/** A contract_log row with the contract's entity.evm_address. */
export interface LogRow {
  bloom: HexBytes;
  contract_id: string;
  consensus_timestamp: string;
  data: HexBytes;
  index: number;
  root_contract_id: string | null;
  topic0: HexBytes | null;
  topic1: HexBytes | null;
  topic2: HexBytes | null;
  topic3: HexBytes | null;
  transaction_hash: HexBytes | null;
  transaction_index: number | null;
  evm_address: HexBytes | null;
  /** The first block ending at or after the log (within the page's bound), if any (src/db/blocks.ts). */
  block_consensus_start: string | null;
  block_consensus_end: string | null;
  block_number: string | null;
  block_hash: string | null;
}
