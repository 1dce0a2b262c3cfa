/** One call in full as both call routes answer it: the detailed result (34 keys) with its logs and state changes. */
import type { HexBytes } from '../../format/hex.ts';
import { type DetailedResultRow, detailedResult } from '../common/detailedResult.ts';
import type { CallRows } from './rows.ts';

/** The body, and 206 for a result without call_result; `fileData`: the call data kept in a file, if read. */
export function callView(rows: CallRows & { result: DetailedResultRow }, fileData: HexBytes | null): { body: Record<string, unknown>; status: 200 | 206 } {
  const body = detailedResult(rows.result, rows.eth, rows.block, { logs: rows.logs, stateChanges: rows.stateChanges, fileData });
  return { body, status: rows.result.call_result === null ? 206 : 200 };
}
