/**
 * The eth_getLogs calls of the load figures: a window of 1, 100 or 1,000 blocks that moves through
 * the whole chain with every call (a stride that is prime to the range), without a filter or with
 * one address (one of the densest) and its commonest topic0. The k-th call of a scenario is always
 * the same, so the relay and this endpoint answer the same calls.
 */
import { toHex } from './filters.ts';
import { call } from './jsonRpc.ts';
import type { Pool } from './sample.ts';

export interface Scenario {
  name: string;
  blocks: number;
  filtered: boolean;
}

export const SCENARIOS: readonly Scenario[] = [1, 100, 1000].flatMap((blocks) => [
  { name: `${blocks} block${blocks > 1 ? 's' : ''}`, blocks, filtered: false },
  { name: `${blocks} block${blocks > 1 ? 's' : ''}, address + topic0`, blocks, filtered: true },
]);

const STRIDE = 104_729;

/** Each dense address with the topic0 it logs most often in the sample. */
export function addressTopics(pool: Pool): { address: string; topic0: string }[] {
  return pool.denseAddresses.map((address) => {
    const counts = new Map<string, number>();
    for (const l of pool.logs) if (l.address === address && l.topics[0]) counts.set(l.topics[0], (counts.get(l.topics[0]) ?? 0) + 1);
    const topic0 = [...counts].sort((a, b) => b[1] - a[1])[0]?.[0];
    if (!topic0) throw new Error(`no topic0 sampled for ${address}`);
    return { address, topic0 };
  });
}

/** The k-th eth_getLogs call of `scenario`. */
export function scenarioCall(pool: Pool, scenario: Scenario, pairs: { address: string; topic0: string }[], k: number): Record<string, unknown> {
  const room = pool.lastBlock - pool.firstBlock + 1 - scenario.blocks;
  const from = pool.firstBlock + ((k * STRIDE) % room);
  const filter: Record<string, unknown> = { fromBlock: toHex(from), toBlock: toHex(from + scenario.blocks - 1) };
  if (scenario.filtered) {
    const pair = pairs[k % pairs.length]!;
    filter.address = pair.address;
    filter.topics = [pair.topic0];
  }
  return call(k, 'eth_getLogs', [filter]);
}
