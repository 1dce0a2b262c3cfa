/**
 * Values for the generated calls, read from the mirror node database with psql: the block range,
 * block hashes, and addresses and topics that are dense (many logs), rare (a few) or absent (none),
 * in the forms eth_getLogs takes them (0x-prefixed, topics padded to 32 bytes, block hashes the first
 * 32 bytes of the record file's hash). The log sample is TABLESAMPLE ... REPEATABLE(seed), so the
 * same seed on the same data gives the same values.
 */
import { spawnSync } from 'node:child_process';

export interface LogSample {
  block: number;
  /** the address the log is reported under: the contract's EVM address, or its long-zero form */
  address: string;
  topics: string[];
}

export interface Pool {
  firstBlock: number;
  lastBlock: number;
  blockHashes: { block: number; hash: string }[];
  logs: LogSample[];
  denseAddresses: string[];
  rareAddresses: string[];
  /** contracts without logs, accounts' EVM aliases, and the long-zero forms of contracts that have an EVM address */
  absentAddresses: string[];
  /** the long-zero form of a contract whose logs are reported under its EVM address */
  longZeroOfEvm: string[];
  denseTopics: string[];
  rareTopics: string[];
}

/** Runs `sql` through the psql command line `psql` (a shell command), returning rows of tab-separated fields. */
function query(psql: string, sql: string): string[][] {
  const run = spawnSync('sh', ['-c', `${psql} -X -A -t -q -F '\t' -v ON_ERROR_STOP=1`], { input: sql, encoding: 'utf8', maxBuffer: 64 << 20 });
  if (run.status !== 0) throw new Error(`psql failed (${run.status}): ${run.stderr.trim()}`);
  return run.stdout.split('\n').filter((l) => l !== '').map((l) => l.split('\t'));
}

const hex32 = (col: string) => `case when ${col} is null then '' else '0x' || lpad(encode(${col}, 'hex'), 64, '0') end`;
const shownAddress = `'0x' || coalesce(encode(e.evm_address, 'hex'), lpad(to_hex(l.contract_id), 40, '0'))`;

export function samplePool(psql: string, seed: number): Pool {
  const [range] = query(psql, 'select min(index), max(index) from record_file');
  const blockHashes = query(
    psql,
    `select index, '0x' || substr(hash, 1, 64) from record_file tablesample system (0.05) repeatable (${seed}) limit 200`,
  ).map(([b, h]) => ({ block: Number(b), hash: h! }));
  const logs = query(
    psql,
    `select (select r.index from record_file r where r.consensus_end >= l.consensus_timestamp order by r.consensus_end limit 1),
            ${shownAddress}, ${hex32('l.topic0')}, ${hex32('l.topic1')}, ${hex32('l.topic2')}, ${hex32('l.topic3')}
       from contract_log l tablesample system (0.05) repeatable (${seed})
       left join entity e on e.id = l.contract_id`,
  ).map(([block, address, ...topics]) => ({ block: Number(block), address: address!, topics: topics.filter((t) => t !== '') }));
  const byCount = <T>(values: T[]) => {
    const counts = new Map<T, number>();
    for (const v of values) counts.set(v, (counts.get(v) ?? 0) + 1);
    return [...counts].sort((a, b) => b[1] - a[1]);
  };
  const addresses = byCount(logs.map((l) => l.address));
  const topics = byCount(logs.flatMap((l) => l.topics));
  const absent = query(
    psql,
    `(select '0x' || coalesce(encode(c.evm_address, 'hex'), lpad(to_hex(c.id), 40, '0')) from entity c
       where c.type = 'CONTRACT' and not exists (select 1 from contract_log l where l.contract_id = c.id)
       order by c.id limit 10)
     union all
     (select '0x' || encode(a.evm_address, 'hex') from entity a where a.type = 'ACCOUNT' and a.evm_address is not null order by a.id limit 5)`,
  ).map(([a]) => a!);
  const longZeroOfEvm = query(
    psql,
    `select '0x' || lpad(to_hex(c.id), 40, '0') from entity c
      where c.type = 'CONTRACT' and c.evm_address is not null
        and exists (select 1 from contract_log l where l.contract_id = c.id) order by c.id limit 10`,
  ).map(([a]) => a!);
  return {
    firstBlock: Number(range![0]),
    lastBlock: Number(range![1]),
    blockHashes,
    logs,
    denseAddresses: addresses.slice(0, 10).map(([a]) => a),
    rareAddresses: addresses.filter(([, n]) => n === 1).slice(0, 40).map(([a]) => a),
    absentAddresses: absent,
    longZeroOfEvm,
    denseTopics: topics.slice(0, 10).map(([t]) => t),
    rareTopics: topics.filter(([, n]) => n === 1).slice(0, 40).map(([t]) => t),
  };
}
