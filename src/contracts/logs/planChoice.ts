/** Whether a log search is planned per execution (src/db/sql.ts, PlanChoice). */
import { type DbLayout, hasTopicIndexes } from '../../db/layout.ts';
import type { TopicKey } from './params.ts';

/** What the choice looks at: the contracts and topics of a search (LogQuery's). */
export interface PlannedSearch {
  contractId: bigint;
  contractIds?: readonly bigint[] | undefined;
  topics: ReadonlyMap<TopicKey, readonly Buffer[]>;
}

/**
 * Whether the page is planned for its values (src/db/sql.ts, PlanChoice; measured per statement by
 * bench/scenarios/planSweep.ts, docs/performance.md "Plans and plan choice"):
 * - every contract's logs with topics: yes. Two topic equalities make a generic plan expect one row,
 *   read the whole range and sort it (1.1 s for a week); planned for its values, a common topic is an
 *   ordered walk that stops after a page and a rare one takes a topic index.
 * - one contract's logs (or the listed contracts' of the `address` filter) with topics: only with the
 *   recommended topic indexes. Without them the
 *   contract's index is the only bounded plan, and a custom plan that expects few matches takes the
 *   whole range's primary key instead (0.5-0.7 s against 0.25-0.3 s); with them a custom plan takes a
 *   topic index for a rare topic (0.5 ms against 0.25 s for the contract's index).
 * - one value of topic0 and no other topic: never. Its index, `(topic0, consensus_timestamp)` or
 *   `(contract_id, topic0, consensus_timestamp)` where they exist, delivers the page's order for any
 *   value (0.2-2.4 ms for dense, rare and absent signatures over a week, generic and custom alike), and
 *   without them nothing beats the ordered walk; planning such a statement per request cost a third of
 *   the bench mix's throughput (1,001 against 1,480 requests/s at 16 connections).
 * - no topic: never: the ordered walk of the contract's (or the primary) index is right for any values.
 */
export function perExecution(query: PlannedSearch, layout: DbLayout | undefined): boolean {
  if (query.topics.size === 0 || signatureOnly(query.topics)) return false;
  const everyContract = query.contractId === 0n && query.contractIds === undefined;
  return everyContract || hasTopicIndexes(layout);
}

/** The search names one event signature (topic0) and nothing else. */
const signatureOnly = (topics: PlannedSearch['topics']): boolean => topics.size === 1 && topics.get('topic0')?.length === 1;
