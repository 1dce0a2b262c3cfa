import { DAYS, ID, T0_SECONDS, TOPIC, contractAddress } from './network.ts';

export interface Example {
  title: string;
  /** Path and query, starting with /api/v1/. */
  path: string;
  endpoint: 'contract' | 'results' | 'logs';
}

/** ns timestamp (as text) to the API's "seconds.nanos" form. */
export function apiTimestamp(ns: string | bigint): string {
  const s = ns.toString().padStart(10, '0');
  return `${s.slice(0, -9)}.${s.slice(-9)}`;
}

const topic64 = (hex: string) => `0x${hex.padStart(64, '0')}`;

/**
 * The banner's example URLs, one feature each. `facts` are values found while seeding (the busiest
 * router block, the latest failed swap, the most traded NFT), so every URL returns data at any scale.
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
  return examples;
}
