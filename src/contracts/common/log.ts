/** The fields of a log that every answer carrying logs shares (the log listings, a call's logs). */
import { entityIdToString, longZeroAddress } from '../../format/entityId.ts';
import { type HexBytes, hex, hexPadded } from '../../format/hex.ts';

/** What a log row needs to be shown: the contract_log columns and the contract's EVM address. */
export interface LogCoreRow {
  bloom: HexBytes | null;
  contract_id: string;
  data: HexBytes | null;
  evm_address: HexBytes | null;
  index: number;
  topic0: HexBytes | null;
  topic1: HexBytes | null;
  topic2: HexBytes | null;
  topic3: HexBytes | null;
}

/** Topics in order topic0..topic3, NULL topics skipped (not kept as null), each padded to 32 bytes. */
export function topicsView(row: Pick<LogCoreRow, 'topic0' | 'topic1' | 'topic2' | 'topic3'>): string[] {
  const topics: string[] = [];
  for (const topic of [row.topic0, row.topic1, row.topic2, row.topic3]) {
    if (topic !== null) topics.push(hexPadded(topic, 64));
  }
  return topics;
}

/** A log's `address`: its contract's EVM address, else the contract's long-zero address. */
export const logAddress = (row: Pick<LogCoreRow, 'contract_id' | 'evm_address'>): string | null =>
  row.evm_address !== null ? hex(row.evm_address) : longZeroAddress(row.contract_id);

/** The six keys every log item starts with (the whole log item of a detailed result). */
export const logCore = (row: LogCoreRow) => ({
  address: logAddress(row),
  bloom: hex(row.bloom),
  contract_id: entityIdToString(row.contract_id),
  data: hexPadded(row.data, 64),
  index: row.index,
  topics: topicsView(row),
});
