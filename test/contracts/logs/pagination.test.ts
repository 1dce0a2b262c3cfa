/**
 * Following links.next from many starting queries visits exactly the rows a direct SQL query
 * returns, once each and in order; every page carries the right block fields. Runs on every test
 * backend (embedded, plus PostgreSQL with TEST_DATABASE_URL).
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import fc from 'fast-check';
import { type TestApp, openTestApp, testConfig } from '../../support/app.ts';
import { type TestDatabase, testBackends } from '../../support/database.ts';
import { BASE_TS, EVM_1001, STEP, TIMESTAMPS, TOPICS, blockOf, generate, insertFixtures } from './fixtures.ts';
import { seconds } from '../../support/timestamps.ts';

type Order = 'asc' | 'desc';
type Cmp = { op: string; v: bigint };
type IdxCmp = { op: string; v: number };

interface Variant {
  contract: bigint;
  path: string;
  order: Order | undefined;
  limit: number;
  ts: { eq: bigint } | { lo?: Cmp; hi?: Cmp } | undefined;
  index: { eq: number } | { lo?: IdxCmp; hi?: IdxCmp } | undefined;
  topics: Array<[string, string[]]>;
}

const data = generate();
const LOG_KEYS = ['address', 'bloom', 'contract_id', 'data', 'index', 'topics', 'block_hash', 'block_number', 'root_contract_id', 'timestamp', 'transaction_hash', 'transaction_index'];
const PATHS: Record<string, string[]> = {
  '1001': ['0.0.1001', '1001', `0x${EVM_1001}`, EVM_1001.toUpperCase(), '0x00000000000000000000000000000000000003e9'],
  '1002': ['0.0.1002', '0.1002', '00000000000000000000000000000000000003EA'],
  '1003': ['1003'],
};

function queryString(v: Variant): string {
  const parts: string[] = [];
  for (const [key, values] of v.topics) for (const value of values) parts.push(`${key}=${value}`);
  if (v.ts && 'eq' in v.ts) parts.push(`timestamp=${seconds(v.ts.eq)}`);
  else if (v.ts) {
    if (v.ts.lo) parts.push(`timestamp=${v.ts.lo.op}:${seconds(v.ts.lo.v)}`);
    if (v.ts.hi) parts.push(`timestamp=${v.ts.hi.op}:${seconds(v.ts.hi.v)}`);
  }
  if (v.index && 'eq' in v.index) parts.push(`index=${v.index.eq}`);
  else if (v.index) {
    if (v.index.lo) parts.push(`index=${v.index.lo.op}:${v.index.lo.v}`);
    if (v.index.hi) parts.push(`index=${v.index.hi.op}:${v.index.hi.v}`);
  }
  if (v.order) parts.push(`order=${v.order}`);
  parts.push(`limit=${v.limit}`);
  return parts.join('&');
}

const SQL_OP: Record<string, string> = { gt: '>', gte: '>=', lt: '<', lte: '<=' };

/** Topic query text to stored bytes, written independently of the service's code. */
function storedTopic(text: string): Buffer {
  let hex = text.startsWith('0x') ? text.slice(2) : text;
  while (hex.startsWith('0')) hex = hex.slice(1);
  return Buffer.from(hex.length % 2 ? `0${hex}` : hex, 'hex');
}

/** The rows the variant selects: (timestamp, index) pairs compared lexicographically. */
async function expected(database: TestDatabase, v: Variant): Promise<string[]> {
  const params: unknown[] = [v.contract.toString()];
  const where = ['contract_id = $1'];
  const p = (value: unknown) => `$${params.push(value)}`;
  for (const [key, values] of v.topics) where.push(`${key} = any(${p(values.map(storedTopic))}::bytea[])`);
  if (v.ts && 'eq' in v.ts) {
    where.push(`consensus_timestamp = ${p(v.ts.eq.toString())}`);
    if (v.index && 'eq' in v.index) where.push(`index = ${p(v.index.eq)}`);
    else if (v.index) {
      if (v.index.lo) where.push(`index ${SQL_OP[v.index.lo.op]} ${p(v.index.lo.v)}`);
      if (v.index.hi) where.push(`index ${SQL_OP[v.index.hi.op]} ${p(v.index.hi.v)}`);
    }
  } else if (v.ts) {
    const idx = v.index && !('eq' in v.index) ? v.index : {};
    if (v.ts.lo) {
      where.push(
        idx.lo
          ? `(consensus_timestamp, index) ${SQL_OP[idx.lo.op]} (${p(v.ts.lo.v.toString())}::bigint, ${p(idx.lo.v)}::int)`
          : `consensus_timestamp ${SQL_OP[v.ts.lo.op]} ${p(v.ts.lo.v.toString())}`,
      );
    }
    if (v.ts.hi) {
      where.push(
        idx.hi
          ? `(consensus_timestamp, index) ${SQL_OP[idx.hi.op]} (${p(v.ts.hi.v.toString())}::bigint, ${p(idx.hi.v)}::int)`
          : `consensus_timestamp ${SQL_OP[v.ts.hi.op]} ${p(v.ts.hi.v.toString())}`,
      );
    }
  }
  const dir = v.order ?? 'desc';
  const rows = await database.db.query<{ ts: string; index: number }>(
    `select consensus_timestamp::text as ts, index from contract_log where ${where.join(' and ')}
     order by consensus_timestamp ${dir}, index ${dir}`,
    params,
  );
  return rows.map((r) => `${seconds(BigInt(r.ts))}/${r.index}`);
}

const logTs = fc.integer({ min: -2, max: TIMESTAMPS + 1 }).chain((i) =>
  fc.constantFrom(0n, 1n, -1n).map((d) => BASE_TS + BigInt(i) * STEP + d),
);
const idx = fc.integer({ min: 0, max: 4 });

/** Valid requests only: every variant passes the reference's rules. */
const VARIANT: fc.Arbitrary<Variant> = fc
  .record({
    contract: fc.constantFrom(1001n, 1002n, 1003n),
    pathChoice: fc.nat(),
    order: fc.constantFrom<Order | undefined>('asc', 'desc', undefined),
    limit: fc.integer({ min: 1, max: 7 }),
    tsKind: fc.constantFrom('none', 'eq', 'lo', 'hi', 'both'),
    a: logTs,
    b: logTs,
    loOp: fc.constantFrom('gt', 'gte'),
    hiOp: fc.constantFrom('lt', 'lte'),
    idxKind: fc.constantFrom('none', 'none', 'eq', 'lo', 'hi', 'both'),
    i: idx,
    j: idx,
    iLoOp: fc.constantFrom('gt', 'gte'),
    iHiOp: fc.constantFrom('lt', 'lte'),
    topics: fc.array(fc.tuple(fc.constantFrom('topic0', 'topic1', 'topic2', 'topic3'), fc.constantFrom(...TOPICS), fc.boolean()), { maxLength: 2 }),
  })
  .map((r): Variant => {
    const paths = PATHS[r.contract.toString()]!;
    const [lo, hi] = r.a <= r.b ? [r.a, r.b] : [r.b, r.a];
    let ts: Variant['ts'];
    let index: Variant['index'];
    switch (r.tsKind) {
      case 'eq':
        ts = { eq: r.a };
        break;
      case 'lo':
        ts = { lo: { op: r.loOp, v: r.a } };
        break;
      case 'hi':
        ts = { hi: { op: r.hiOp, v: r.a } };
        break;
      case 'both':
        ts = { lo: { op: r.loOp, v: lo }, hi: { op: r.hiOp, v: hi } };
        break;
    }
    if (ts && r.idxKind !== 'none') {
      if ('eq' in ts) {
        if (r.idxKind === 'eq') index = { eq: r.i };
        else if (r.idxKind === 'lo') index = { lo: { op: r.iLoOp, v: r.i } };
        else if (r.idxKind === 'hi') index = { hi: { op: r.iHiOp, v: r.j } };
        else index = { lo: { op: r.iLoOp, v: r.i }, hi: { op: r.iHiOp, v: r.j } };
      } else {
        // index bounds need the inclusive timestamp bound on the same side
        const canLo = ts.lo !== undefined && (r.idxKind === 'lo' || r.idxKind === 'both');
        const canHi = ts.hi !== undefined && (r.idxKind === 'hi' || r.idxKind === 'both');
        if (canLo) ts.lo!.op = 'gte';
        if (canHi) ts.hi!.op = 'lte';
        if (canLo || canHi) {
          index = {
            ...(canLo ? { lo: { op: r.iLoOp, v: r.i } } : {}),
            ...(canHi ? { hi: { op: r.iHiOp, v: r.j } } : {}),
          };
        }
      }
    }
    // topics need an eq or a closed range
    const closed = ts !== undefined && ('eq' in ts || (ts.lo !== undefined && ts.hi !== undefined));
    const topics = new Map<string, string[]>();
    if (closed) {
      for (const [key, topic, padded] of r.topics) {
        const text = padded ? `0x${topic.padStart(64, '0')}` : topic;
        topics.set(key, [...(topics.get(key) ?? []), text]);
      }
    }
    return { contract: r.contract, path: paths[r.pathChoice % paths.length]!, order: r.order, limit: r.limit, ts, index, topics: [...topics] };
  });

for (const backend of testBackends()) {
  describe(`logs pagination (${backend})`, () => {
    let api: TestApp;

    before(async () => {
      // on the partitioned (v2) backends a newest-first page splits 25 s before the last record file's
      // end, in the middle of the data (src/contracts/common/newestFirst.ts)
      const config = testConfig({ HIERO_MIRROR_REST_DB_NEWESTFIRSTSPAN: '25s' });
      api = await openTestApp(backend, (db) => insertFixtures(db, data), { config });
    });

    after(() => api?.close());

    async function walk(v: Variant): Promise<string[]> {
      let url: string | null = `/api/v1/contracts/${v.path}/results/logs?${queryString(v)}`;
      const seen: string[] = [];
      for (let pages = 0; url !== null; pages++) {
        assert.ok(pages < 1000, `no end: ${url}`);
        const response: { statusCode: number; body: string; headers: Record<string, unknown> } = await api.get(url);
        assert.equal(response.statusCode, 200, `${url} -> ${response.body}`);
        const body = JSON.parse(response.body) as { logs: Array<Record<string, unknown>>; links: { next: string | null } };
        assert.deepEqual(Object.keys(body), ['logs', 'links']);
        assert.ok(body.logs.length <= v.limit);
        for (const log of body.logs) {
          assert.deepEqual(Object.keys(log), LOG_KEYS);
          assert.equal(log.contract_id, `0.0.${v.contract}`);
          assert.equal(log.address, v.contract === 1001n ? `0x${EVM_1001}` : `0x${v.contract.toString(16).padStart(40, '0')}`);
          const [s, n] = String(log.timestamp).split('.') as [string, string];
          const block = blockOf(data.blocks, BigInt(s) * 1_000_000_000n + BigInt(n));
          assert.equal(log.block_number, block ? block.index : null, String(log.timestamp));
          assert.equal(log.block_hash, block ? `0x${block.hash}` : '0x');
          seen.push(`${log.timestamp}/${log.index}`);
        }
        if (body.links.next !== null) {
          assert.equal(body.logs.length, v.limit, 'a next link only follows a full page');
          assert.equal(response.headers.link, `<${body.links.next}>; rel="next"`);
        } else {
          assert.equal(response.headers.link, undefined);
        }
        url = body.links.next;
      }
      return seen;
    }

    test('following links.next visits every matching row once, in order', async () => {
      let runs = 0;
      let nonEmpty = 0;
      let multiPage = 0;
      await fc.assert(
        fc.asyncProperty(VARIANT, async (v) => {
          const want = await expected(api.database, v);
          const got = await walk(v);
          assert.deepEqual(got, want, `${v.path}?${queryString(v)}`);
          runs++;
          if (want.length > 0) nonEmpty++;
          if (want.length > v.limit) multiPage++;
        }),
        { numRuns: Number(process.env.LOGS_PAGINATION_RUNS ?? 150), seed: 20251122 },
      );
      // the generator must exercise real paging, not only empty answers
      assert.ok(nonEmpty > runs / 2 && multiPage > runs / 4, `${runs} runs, ${nonEmpty} non-empty, ${multiPage} with several pages`);
    });

    test('hand-picked starting points', async () => {
      const t = (i: number) => BASE_TS + BigInt(i) * STEP;
      const cases: Variant[] = [];
      for (const contract of [1001n, 1002n, 1003n]) {
        for (const order of ['asc', 'desc'] as const) {
          for (let limit = 1; limit <= 7; limit++) {
            cases.push({ contract, path: `0.0.${contract}`, order, limit, ts: undefined, index: undefined, topics: [] });
          }
          cases.push({ contract, path: `${contract}`, order, limit: 2, ts: { lo: { op: 'gte', v: t(10) }, hi: { op: 'lte', v: t(30) } }, index: { lo: { op: 'gt', v: 0 }, hi: { op: 'lt', v: 2 } }, topics: [] });
          cases.push({ contract, path: `${contract}`, order, limit: 3, ts: { lo: { op: 'gte', v: t(5) }, hi: { op: 'lt', v: t(90) } }, index: undefined, topics: [['topic0', [TOPICS[0]!, `0x${TOPICS[1]}`]]] });
          cases.push({ contract, path: `${contract}`, order, limit: 1, ts: { eq: t(12) }, index: { lo: { op: 'gte', v: 1 } }, topics: [] });
        }
      }
      for (const v of cases) assert.deepEqual(await walk(v), await expected(api.database, v), `${v.path}?${queryString(v)}`);
    });
  });
}
