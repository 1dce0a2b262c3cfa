/**
 * Rewrites a URL list made for one gen-data.sql dataset (../shared/bench/urls.txt: scale 30) for a
 * dataset of another scale, so that the same request shapes can be timed on both (latency should not
 * depend on data size). Contracts and accounts are matched by popularity rank (the generator's
 * `bench.con` / `bench.acct` tables): the hottest ranks keep their rank, the long tail is scaled
 * proportionally, and a contract with a trait the URL depends on (an EVM address, deleted, created
 * inside the window, created from a file) is replaced by the nearest-ranked contract with the same
 * traits. Ids, long-zero addresses, EVM addresses and address topics are rewritten; unknown ids,
 * timestamps, block numbers and topic hashes stay as they are.
 *
 *   npm run bench -- translate-urls --from postgres://.../cqs_bench --to postgres://.../cqs_bench1 \
 *     ../shared/bench/urls.txt > /tmp/urls-scale1.txt
 */
import { readFileSync } from 'node:fs';
import pg from 'pg';
import { type OptionsConfig, type ScenarioArgs, defineScenario } from '../lib/scenario.ts';

interface Contract {
  id: number;
  rank: number;
  evm: string | null;
  c20: string;
  traits: string;
}

interface Account {
  id: number;
  rank: number;
  a20: string | null;
}

const HOT_RANKS = 25; // the five hot contracts and the twenty DEX pairs keep their rank

async function load(url: string): Promise<{ contracts: Contract[]; accounts: Account[] }> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const contracts = await client.query<Contract>(
      `select c.id::int as id, c.rank, encode(c.evm, 'hex') as evm, encode(c.c20, 'hex') as c20,
              concat_ws(',', c.evm is not null, coalesce(c.deleted, false), c.created_ts >= p.t0, c.file_id is not null) as traits
       from bench.con c, bench.params p order by c.rank`,
    );
    const accounts = await client.query<Account>(
      `select id::int as id, rank, encode(coalesce(evm, a20), 'hex') as a20 from bench.acct order by rank`,
    );
    return { contracts: contracts.rows, accounts: accounts.rows };
  } finally {
    await client.end();
  }
}

function targetRank(rank: number, from: number, to: number): number {
  if (rank <= HOT_RANKS) return rank;
  return Math.min(to, Math.max(HOT_RANKS + 1, Math.round((rank * to) / from)));
}

const USAGE = `  URL_FILE             the URL list made for the --from database (written to stdout for --to)
  --from URL           the database the list was made for (its bench.con / bench.acct tables)
  --to URL             the database of the other scale`;

const OPTIONS = { from: { type: 'string' }, to: { type: 'string' } } satisfies OptionsConfig;

async function main({ values, positionals, fail }: ScenarioArgs<typeof OPTIONS>): Promise<void> {
  if (!values.from || !values.to) return fail('--from and --to are required');
  if (positionals.length !== 1) fail(`one URL file is needed, got ${positionals.length}`);
  const source = await load(values.from);
  const target = await load(values.to);

  const contractMap = new Map<number, Contract>();
  const addressMap = new Map<string, string>();
  for (const c of source.contracts) {
    const rank = targetRank(c.rank, source.contracts.length, target.contracts.length);
    // nearest rank with the same traits (the target's ranks are 1..n in order)
    let best: Contract | undefined;
    for (const t of target.contracts) {
      if (t.traits === c.traits && (!best || Math.abs(t.rank - rank) < Math.abs(best.rank - rank))) best = t;
    }
    const match = best ?? target.contracts[rank - 1]!;
    contractMap.set(c.id, match);
    addressMap.set(c.c20, match.c20);
    if (c.evm) addressMap.set(c.evm, match.evm ?? match.c20);
  }
  const accountMap = new Map<number, Account>();
  for (const a of source.accounts) {
    const match = target.accounts[targetRank(a.rank, source.accounts.length, target.accounts.length) - 1]!;
    accountMap.set(a.id, match);
    if (a.a20 && match.a20) addressMap.set(a.a20, match.a20);
  }
  const mapId = (id: number) => contractMap.get(id)?.id ?? accountMap.get(id)?.id ?? id;

  const lines = readFileSync(positionals[0]!, 'utf8').split('\n');
  const out = lines.map((line) => {
    if (line.startsWith('#') || line.trim() === '') return line;
    const address = (hex: string) => addressMap.get(hex.toLowerCase()) ?? hex;
    return line
      // an address topic: 24 zero digits and the address; then standalone 40-digit addresses
      .replace(/(?<![0-9a-f])0{24}([0-9a-f]{40})(?![0-9a-f])/gi, (_, hex: string) => `${'0'.repeat(24)}${address(hex)}`)
      .replace(/(?<![0-9a-f])[0-9a-f]{40}(?![0-9a-f])/gi, address)
      .replace(/\b0\.0\.(\d+)\b/g, (_, num: string) => `0.0.${mapId(Number(num))}`)
      .replace(/(\/contracts\/)(\d+)(?=[/?]|$)/, (_, prefix: string, num: string) => `${prefix}${mapId(Number(num))}`);
  });
  process.stdout.write(`# translated from ${positionals[0]} for ${values.to.replace(/\/\/[^@]*@/, '//')}\n${out.join('\n')}`);
}

export default defineScenario({ usage: USAGE, options: OPTIONS, positionals: 'URL_FILE', run: main });
