/** Items of GET /api/v1/contracts/results: the detailed result object, list variant (no logs or state changes). */
import type { ItemBlock } from '../../db/blocks.ts';
import { type DetailedResultRow, type EthereumRow, detailedResult } from '../common/detailedResult.ts';

/** The block of each timestamp: its candidate record file, when that file contains it. */
export function blocksByTimestamp(candidates: ReadonlyArray<ItemBlock & { ts: string }>): Map<string, ItemBlock> {
  const blocks = new Map<string, ItemBlock>();
  for (const c of candidates) if (BigInt(c.consensus_start) <= BigInt(c.ts)) blocks.set(c.ts, c);
  return blocks;
}

export function networkResultView(
  rows: readonly DetailedResultRow[],
  eths: readonly EthereumRow[],
  blocks: ReadonlyMap<string, ItemBlock>,
): Array<Record<string, unknown>> {
  const ethByTimestamp = new Map(eths.map((e) => [e.consensus_timestamp, e]));
  return rows.map((row) => detailedResult(row, ethByTimestamp.get(row.consensus_timestamp), blocks.get(row.consensus_timestamp)));
}
