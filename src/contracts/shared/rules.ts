import type { FilterRule } from '../../http/filters.ts';
import { INT64_MAX } from '../../format/entityId.ts';
import { isTimestamp, timestampToNs } from '../../format/timestamp.ts';

/**
 * `timestamp`: seconds with up to 9 fraction digits, any operator. Values beyond the 64-bit
 * nanosecond range are rejected here (the reference lets them reach SQL and answers 503).
 */
export const timestampRule: FilterRule = (_op, value) => isTimestamp(value) && BigInt(timestampToNs(value)) <= INT64_MAX;
