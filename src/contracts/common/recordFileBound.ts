/**
 * How far the record file (block) search of a page may reach. A row's file is the first one ending
 * at or after the row, and it ends no later than `slackNs` after the page's latest row (the close
 * interval of logs, the slack of results); past that the statement stops looking.
 */
import { INT64_MAX } from '../../format/entityId.ts';

/**
 * The latest of `timestamps` (decimal nanoseconds) plus `slackNs`, at most int64's maximum (a
 * `consensus_end` cannot be later, and a larger parameter would fail the statement); `slackNs`
 * alone for no timestamps.
 */
export function recordFileSearchEnd(timestamps: readonly string[], slackNs: bigint): string {
  let latest = timestamps.length === 0 ? 0n : BigInt(timestamps[0]!);
  for (const timestamp of timestamps) {
    const value = BigInt(timestamp);
    if (value > latest) latest = value;
  }
  return (latest < INT64_MAX - slackNs ? latest + slackNs : INT64_MAX).toString();
}
