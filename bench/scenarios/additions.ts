/**
 * What the additions of issue 27 save a client, against the request chains the reference needs for the
 * same data, on one database (both servers must read it; this service with additions.filters on):
 *
 *   npm run bench -- additions --reference http://127.0.0.1:5552 --service http://127.0.0.1:5551 \
 *     --database-url postgres://postgres@127.0.0.1:5432/mirror_node
 *
 * 1. eth_getLogs over 5 addresses and 100 blocks, as the JSON-RPC relay does it on the reference (two
 *    /api/v1/blocks/{n} lookups, then each address's log listing over the blocks' timestamps, pages of
 *    100) against one request here (`address` x 5 and a `block.number` range); the items must be equal.
 * 2. A range of about 20,000 logs: pages of 100 from the reference against one NDJSON answer here.
 * NDJSON throughput and memory over the whole database: the ndjson-stream scenario (a process of its own: run
 * here, after the comparisons, its stream read at a tenth of the rate for reasons not found).
 */
import pg from 'pg';
import type { Fail } from '../lib/cli.ts';
import { requireServer } from '../lib/server.ts';
import { type OptionsConfig, type ScenarioArgs, defineScenario } from '../lib/scenario.ts';
import { DATABASE_URL } from '../lib/options.ts';

const USAGE = `  --reference URL      the reference REST API on the same database (required)
  --service URL        this service, with additions.filters on (required)
  --database-url URL   the database both read (required)`;

const OPTIONS = {
  reference: { type: 'string' },
  service: { type: 'string' },
  ...DATABASE_URL,
} satisfies OptionsConfig;

async function main(args: ScenarioArgs<typeof OPTIONS>): Promise<void> {
  const { values } = args;
  const fail: Fail = args.fail;
  if (!values.reference || !values.service || !values['database-url']) fail('--reference, --service and --database-url are required');
  await requireServer('reference', values.reference!);
  await requireServer('service', values.service!);
  const REF = values.reference!;
  const OURS = values.service!;
  const API = '/api/v1/contracts';

  interface Fetched {
    requests: number;
    bytes: number;
    ms: number;
  }

  async function fetchText(url: string, headers: Record<string, string> = {}): Promise<{ status: number; text: string }> {
    const res = await fetch(url, { headers });
    return { status: res.status, text: await res.text() };
  }

  /** Follows a listing's next links from `path` on `base`; the items of every page. */
  async function pages(base: string, path: string, key: string, stats: Fetched): Promise<unknown[]> {
    const items: unknown[] = [];
    let next: string | null = path;
    while (next) {
      const { status, text } = await fetchText(base + next);
      if (status !== 200) throw new Error(`${base}${next}: ${status} ${text.slice(0, 200)}`);
      stats.requests++;
      stats.bytes += Buffer.byteLength(text);
      const body = JSON.parse(text) as Record<string, unknown> & { links: { next: string | null } };
      items.push(...(body[key] as unknown[]));
      next = body.links.next;
    }
    return items;
  }

  /** An NDJSON answer: its items and its status line. */
  async function ndjson(url: string, stats: Fetched): Promise<{ items: unknown[]; status: unknown }> {
    const { status, text } = await fetchText(url, { accept: 'application/x-ndjson' });
    if (status !== 200) throw new Error(`${url}: ${status} ${text.slice(0, 200)}`);
    stats.requests++;
    stats.bytes += Buffer.byteLength(text);
    const lines = text.trim().split('\n');
    return { items: lines.slice(0, -1).map((l) => JSON.parse(l) as unknown), status: JSON.parse(lines[lines.length - 1]!) };
  }

  const timed = async <T>(work: (stats: Fetched) => Promise<T>): Promise<[T, Fetched]> => {
    const stats: Fetched = { requests: 0, bytes: 0, ms: 0 };
    const started = performance.now();
    const value = await work(stats);
    stats.ms = performance.now() - started;
    return [value, stats];
  };

  const line = (name: string, s: Fetched) => `${name}: ${s.requests} requests, ${(s.bytes / 1e6).toFixed(2)} MB, ${s.ms.toFixed(0)} ms`;

  const db = new pg.Client({ connectionString: values['database-url'] });
  await db.connect();

  // 1. eth_getLogs: the five contracts with the most logs in 100 blocks of the newest day
  const [window] = (
    await db.query<{ first: string; last: string }>(
      `select (max(index) - 5000)::text as first, (max(index) - 4901)::text as last from record_file`,
    )
  ).rows;
  const from = window!.first;
  const to = window!.last;
  const { rows: busiest } = await db.query<{ id: string; evm: string | null }>(
    `select l.contract_id::text as id, encode(e.evm_address, 'hex') as evm from contract_log l left join entity e on e.id = l.contract_id
    where l.consensus_timestamp between (select consensus_start from record_file where index = $1) and (select consensus_end from record_file where index = $2)
    group by 1, 2 order by count(*) desc, 1 limit 5`,
    [from, to],
  );
  const addresses = busiest.map((c) => (c.evm ? `0x${c.evm}` : `0.0.${c.id}`));
  process.stdout.write(`eth_getLogs over blocks ${from}-${to} and ${addresses.length} addresses (${addresses.join(', ')})\n`);
  for (let round = 0; round < 2; round++) {
    const [refItems, ref] = await timed(async (stats) => {
      const blocks = await Promise.all([from, to].map(async (n) => {
        const { text } = await fetchText(`${REF}/api/v1/blocks/${n}`);
        stats.requests++;
        stats.bytes += Buffer.byteLength(text);
        return JSON.parse(text) as { timestamp: { from: string; to: string } };
      }));
      const range = `timestamp=gte:${blocks[0]!.timestamp.from}&timestamp=lte:${blocks[1]!.timestamp.to}`;
      const all: Array<{ timestamp: string; index: number }> = [];
      for (const address of addresses) all.push(...((await pages(REF, `${API}/${address}/results/logs?${range}&limit=100&order=asc`, 'logs', stats)) as typeof all));
      return all.sort((a, b) => (a.timestamp === b.timestamp ? a.index - b.index : a.timestamp < b.timestamp ? -1 : 1));
    });
    const query = `${addresses.map((a) => `address=${a}`).join('&')}&block.number=gte:${from}&block.number=lte:${to}&order=asc`;
    const [ourPages, ours] = await timed((stats) => pages(OURS, `${API}/results/logs?${query}&limit=100`, 'logs', stats));
    const [ourStream, stream] = await timed((stats) => ndjson(`${OURS}${API}/results/logs?${query}`, stats));
    if (JSON.stringify(ourPages) !== JSON.stringify(refItems) || JSON.stringify(ourStream.items) !== JSON.stringify(refItems)) {
      throw new Error('eth_getLogs: the items differ from the reference chain\'s');
    }
    process.stdout.write(`  round ${round + 1}, ${refItems.length} logs\n    ${line('reference chain', ref)}\n    ${line('this service, pages of 100', ours)}\n    ${line('this service, NDJSON', stream)}\n`);
  }

  // 2. about 20,000 logs network-wide: the newest range that holds them
  const { rows: [big] } = await db.query<{ from: string; to: string }>(
    `select min(consensus_timestamp)::text as from, max(consensus_timestamp)::text as to from (
     select consensus_timestamp from contract_log order by consensus_timestamp desc limit 20000) l`,
  );
  const ts = (ns: string) => `${ns.slice(0, -9)}.${ns.slice(-9)}`;
  const range = `timestamp=gte:${ts(big!.from)}&timestamp=lte:${ts(big!.to)}&order=asc`;
  process.stdout.write(`20,000 logs: ${range}\n`);
  for (let round = 0; round < 2; round++) {
    const [refItems, ref] = await timed((stats) => pages(REF, `${API}/results/logs?${range}&limit=100`, 'logs', stats));
    const [stream, ours] = await timed((stats) => ndjson(`${OURS}${API}/results/logs?${range}`, stats));
    if (JSON.stringify(stream.items) !== JSON.stringify(refItems)) throw new Error('20,000 logs: the items differ');
    process.stdout.write(`  round ${round + 1}, ${refItems.length} logs\n    ${line('reference, pages of 100', ref)}\n    ${line('this service, NDJSON', ours)}\n`);
  }

  await db.end();
}

export default defineScenario({ usage: USAGE, options: OPTIONS, run: main });
