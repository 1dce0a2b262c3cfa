/**
 * The ranges the relay cannot answer within 30 s: eth_getLogs of one dense address (the relay takes
 * any range of blocks for one address, up to 7 days of timestamps) over wider and wider ranges, and
 * ranges without an address just over the relay's 1,000-block limit, each sent to A and then to B
 * alone, with the time and what each answered (the number of logs, or the error).
 */
import { toHex } from './filters.ts';
import { call, post, type Reply } from './jsonRpc.ts';
import type { Pool } from './sample.ts';

export interface ProbeRow {
  call: string;
  a: string;
  aMs: number;
  b: string;
  bMs: number;
}

const ADDRESS_SPANS = [1_000, 10_000, 50_000, 100_000, 200_000, 300_000];
const OPEN_SPANS = [1_000, 1_001, 5_000];

function answer(r: Reply): string {
  if (r.timedOut) return 'timeout';
  const j = r.json as { result?: unknown; error?: { code: number; message: string } } | undefined;
  if (Array.isArray(j?.result)) return `${j.result.length} logs`;
  if (j?.error) return `HTTP ${r.status} ${j.error.code} ${j.error.message.slice(0, 120)}`;
  return `HTTP ${r.status} ${r.text.slice(0, 120)}`;
}

export async function probeRanges(a: string, b: string, pool: Pool, pairs: { address: string }[]): Promise<ProbeRow[]> {
  const address = pairs[0]!.address;
  const calls = [
    ...ADDRESS_SPANS.map((span) => ({ label: `${span} blocks, one address`, filter: { address, fromBlock: toHex(pool.lastBlock - span + 1), toBlock: toHex(pool.lastBlock) } })),
    ...OPEN_SPANS.map((span) => ({ label: `${span} blocks, no address`, filter: { fromBlock: toHex(pool.lastBlock - span + 1), toBlock: toHex(pool.lastBlock) } })),
  ];
  const rows: ProbeRow[] = [];
  console.log('\n| call | relay | ms | endpoint | ms |\n|---|---|---|---|---|');
  for (const [i, c] of calls.entries()) {
    const body = call(i + 1, 'eth_getLogs', [c.filter]);
    const ra = await post(a, body, 120_000);
    const rb = await post(b, body, 120_000);
    const row = { call: c.label, a: answer(ra), aMs: Math.round(ra.ms), b: answer(rb), bMs: Math.round(rb.ms) };
    rows.push(row);
    console.log(`| ${row.call} | ${row.a} | ${row.aMs} | ${row.b} | ${row.bMs} |`);
  }
  return rows;
}
