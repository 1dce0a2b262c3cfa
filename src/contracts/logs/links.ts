/**
 * The next links of pages of logs, for both logs routes: which values of the last log carry over
 * to the next page.
 */
import { formatTimestamp } from '../../format/timestamp.ts';
import type { LastValue } from '../../http/request/links.ts';
import { type LinkRequest, type Paging, nextPageLink } from '../../http/request/listing.ts';
import type { LogFilters } from './params.ts';
import type { LogView } from './view.ts';

/**
 * The last values of a full page for its next link: the timestamp (inclusive) unless the request
 * asked for one timestamp, the index (exclusive) unless it asked for one index.
 */
export function lastValues(bounds: LogFilters, last: LogView): Array<[string, LastValue]> {
  const values: Array<[string, LastValue]> = [];
  const { timestamp, index } = bounds;
  if (timestamp.lower || timestamp.upper || !timestamp.equal) {
    values.push(['timestamp', { value: last.timestamp ?? '', inclusive: !index.equal }]);
  }
  if (index.lower || index.upper || !index.equal) {
    values.push(['index', { value: String(last.index), inclusive: false }]);
  }
  return values;
}

/** The next link of a page of logs: none for a single-log request (timestamp eq and index eq). */
export function logsNextLink(request: LinkRequest, bounds: LogFilters, page: Paging, logs: readonly LogView[]): string | null {
  if (bounds.timestamp.equal !== undefined && bounds.index.equal !== undefined) return null;
  return nextPageLink(request, page, logs.length, () => lastValues(bounds, logs[logs.length - 1]!));
}

/**
 * The next link's values, from the user's own bounds: none for a short
 * page or a single-log request, unless the bound range was cut (then the timestamp is the cut,
 * inclusive, and the index still the last log's). A cut range with an empty page has no last log:
 * no link here (the reference fails with 500).
 */
export function linkValues(bounds: LogFilters, { limit }: Paging, logs: readonly LogView[], bound: bigint | undefined): Array<[string, LastValue]> | null {
  const isEnd = logs.length < limit;
  if (bound === undefined && (isEnd || (bounds.timestamp.equal && bounds.index.equal))) return null;
  const last = logs[logs.length - 1];
  if (last === undefined) return null;
  const values = lastValues(bounds, last);
  if (!isEnd || bound === undefined) return values;
  return values.map(([key, value]) => (key === 'timestamp' ? [key, { ...value, value: formatTimestamp(bound)! }] : [key, value]));
}
