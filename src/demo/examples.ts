import { DAYS, ID, T0_SECONDS, TOPIC, contractAddress } from './network.ts';
import type { DemoInfo } from './seed.ts';

/** The endpoints the examples show. */
export type Endpoint =
  | 'contract' // /api/v1/contracts/{contractIdOrAddress}
  | 'results' // /api/v1/contracts/{contractIdOrAddress}/results
  | 'logs' // /api/v1/contracts/{contractIdOrAddress}/results/logs
  | 'contracts' // /api/v1/contracts
  | 'allResults' // /api/v1/contracts/results
  | 'allLogs' // /api/v1/contracts/results/logs
  | 'resultByTimestamp' // /api/v1/contracts/{contractIdOrAddress}/results/{timestamp}
  | 'resultByTransaction' // /api/v1/contracts/results/{transactionIdOrHash}
  | 'actions' // /api/v1/contracts/results/{transactionIdOrHash}/actions
  | 'state'; // /api/v1/contracts/{contractIdOrAddress}/state

export interface Example {
  title: string;
  /** Path and query, starting with /api/v1/. */
  path: string;
  endpoint: Endpoint;
}

/** What the banner and `seed` say about a demo network found in a database: its scale and when it was made. */
export function demoLine(info: DemoInfo): string {
  return `demo network (scale ${info.scale}) created ${new Date(info.seededAt).toISOString().replace(/\.\d+Z$/, 'Z')}`;
}

/** ns timestamp (as text) to the API's "seconds.nanos" form. */
export function apiTimestamp(ns: string | bigint): string {
  const s = ns.toString().padStart(10, '0');
  return `${s.slice(0, -9)}.${s.slice(-9)}`;
}

const topic64 = (hex: string) => `0x${hex.padStart(64, '0')}`;

/**
 * The banner's example URLs, one feature each. `facts` are values found while seeding (the busiest
 * router block and its bounds, the latest failed swap, the most traded NFT, a swap near that block,
 * the latest Ethereum swap's hash, a swap's transaction id), so every URL returns data at any scale.
 */
export function demoExamples(facts: Record<string, string>): Example[] {
  const from = T0_SECONDS;
  const to = T0_SECONDS + DAYS * 86400;
  const window = `timestamp=gte:${from}&timestamp=lt:${to}`;
  const asOf = T0_SECONDS + 86400; // day 2, before the token's update on day 3
  const examples: Example[] = [
    { title: 'an ERC-20 token (bytecode from a file, ED25519 admin key)', path: `/api/v1/contracts/0.0.${ID.token}`, endpoint: 'contract' },
    {
      title: 'the same contract as of day 2, before its update (entity_history)',
      path: `/api/v1/contracts/0.0.${ID.token}?timestamp=${asOf}`,
      endpoint: 'contract',
    },
  ];
  if (facts.failed_router_ts) {
    examples.push({
      title: 'DEX router results from a failed swap back (revert reason in error_message, links.next)',
      path: `/api/v1/contracts/0.0.${ID.router}/results?timestamp=lte:${apiTimestamp(facts.failed_router_ts)}&limit=5`,
      endpoint: 'results',
    });
  }
  if (facts.busy_block) {
    examples.push({
      title: `DEX router results in block ${facts.busy_block}`,
      path: `/api/v1/contracts/0.0.${ID.router}/results?block.number=${facts.busy_block}`,
      endpoint: 'results',
    });
  }
  examples.push({
    title: 'Swap events of the AMM pair, by its create2 address (topic and timestamp filters)',
    path: `/api/v1/contracts/0x${contractAddress(ID.pair).toString('hex')}/results/logs?topic0=0x${TOPIC.Swap}&${window}&limit=5`,
    endpoint: 'logs',
  });
  if (facts.nft_token) {
    examples.push({
      title: `the transfers of NFT #${facts.nft_token} (ERC-721 Transfer, token id in topic3)`,
      path: `/api/v1/contracts/0.0.${ID.nft}/results/logs?topic0=0x${TOPIC.Transfer}&topic3=${topic64(BigInt(facts.nft_token).toString(16))}&${window}`,
      endpoint: 'logs',
    });
  }
  examples.push({ title: 'every contract, newest first (deleted ones too)', path: '/api/v1/contracts', endpoint: 'contracts' });
  if (facts.block_start && facts.block_end) {
    examples.push({
      title: `the results of all contracts in block ${facts.busy_block} (2 seconds)`,
      path: `/api/v1/contracts/results?timestamp=gte:${apiTimestamp(facts.block_start)}&timestamp=lte:${apiTimestamp(facts.block_end)}`,
      endpoint: 'allResults',
    });
  }
  if (facts.swap_ts) {
    const swap = BigInt(facts.swap_ts);
    examples.push({
      title: 'Swap events of any contract over five minutes',
      path: `/api/v1/contracts/results/logs?topic0=0x${TOPIC.Swap}&timestamp=gte:${apiTimestamp(swap - 120_000_000_000n)}&timestamp=lte:${apiTimestamp(swap + 180_000_000_000n)}`,
      endpoint: 'allLogs',
    });
    examples.push({
      title: 'one swap through the router in detail (the logs of the pair and both tokens, storage changes)',
      path: `/api/v1/contracts/0.0.${ID.router}/results/${apiTimestamp(swap)}`,
      endpoint: 'resultByTimestamp',
    });
  }
  if (facts.eth_hash) {
    examples.push({
      title: 'an Ethereum (type 2) swap by its transaction hash',
      path: `/api/v1/contracts/results/0x${facts.eth_hash}`,
      endpoint: 'resultByTransaction',
    });
  }
  if (facts.swap_transaction_id) {
    examples.push({
      title: 'the call trace of a swap, by transaction id (router, pair, tokens; depth 0-2)',
      path: `/api/v1/contracts/results/${facts.swap_transaction_id}/actions`,
      endpoint: 'actions',
    });
  }
  examples.push({
    title: 'the storage of the ERC-20 token (balances and allowances), current values',
    path: `/api/v1/contracts/0.0.${ID.token}/state`,
    endpoint: 'state',
  });
  return examples;
}
