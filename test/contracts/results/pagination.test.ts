/**
 * Following links.next from many starting queries of GET /api/v1/contracts/{id}/results visits
 * exactly the rows a direct SQL query returns, once each and in order. Runs on every test backend
 * (embedded, plus PostgreSQL with TEST_DATABASE_URL).
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import fc from 'fast-check';
import { type TestApp, openTestApp, testConfig } from '../../support/app.ts';
import { type TestDatabase, testBackends } from '../../support/database.ts';
import { BASE_TS, EVM_1001, EVM_2002, FIRST_BLOCK, PER_BLOCK, RESULTS, STEP, generate, insertFixtures } from './fixtures.ts';
import { seconds } from '../../support/timestamps.ts';

type Order = 'asc' | 'desc';
interface Cmp {
  op: string;
  v: bigint;
}

interface Variant {
  /** 0 = every contract (quirk 9.1). */
  contract: bigint;
  path: string;
  order: Order | undefined;
  limit: number;
  ts: Cmp[];
  from: Array<{ op: string; id: bigint; text: string }>;
  internal: boolean | undefined;
  block: { kind: 'number'; text: string; index: number } | { kind: 'hash'; text: string; index: number } | undefined;
  txIndexes: number[];
}

const data = generate();
const RESULT_KEYS = ['address', 'amount', 'bloom', 'call_result', 'contract_id', 'created_contract_ids', 'error_message', 'from',
  'function_parameters', 'gas_consumed', 'gas_limit', 'gas_used', 'timestamp', 'to', 'hash'];
const PATHS: Record<string, string[]> = {
  '0': ['0.0.0', '0', '0x0000000000000000000000000000000000000000'],
  '1001': ['0.0.1001', '1001', '0.1001', `0x${EVM_1001}`, EVM_1001.toUpperCase(), '0x00000000000000000000000000000000000003e9'],
  '1002': ['0.0.1002', '00000000000000000000000000000000000003EA'],
  '1003': ['1003'],
};
const SENDER_TEXT: Record<string, string[]> = {
  '2001': ['0.0.2001', '2001', '00000000000000000000000000000000000007d1'],
  '2002': ['0.2002', `0x${EVM_2002}`, EVM_2002.toUpperCase()],
  '2003': ['2003', '0x00000000000000000000000000000000000007D3'],
};
const SQL_OP: Record<string, string> = { eq: '=', ne: '<>', gt: '>', gte: '>=', lt: '<', lte: '<=' };

function queryString(v: Variant): string {
  const parts: string[] = [];
  for (const c of v.ts) parts.push(`timestamp=${c.op === 'eq' ? '' : `${c.op}:`}${seconds(c.v)}`);
  for (const f of v.from) parts.push(`from=${f.op === 'eq' ? '' : `${f.op}:`}${f.text}`);
  if (v.internal !== undefined) parts.push(`internal=${v.internal}`);
  if (v.block) parts.push(`block.${v.block.kind}=${v.block.text}`);
  for (const i of v.txIndexes) parts.push(`transaction.index=${i}`);
  if (v.order) parts.push(`order=${v.order}`);
  parts.push(`limit=${v.limit}`);
  return parts.join('&');
}

/** The rows the variant selects, by a query written independently of the service's code. */
async function expected(database: TestDatabase, v: Variant): Promise<string[]> {
  const params: unknown[] = [];
  const p = (value: unknown) => `$${params.push(value)}`;
  const where = ['true'];
  if (v.contract !== 0n) where.push(`contract_id = ${p(v.contract.toString())}`);
  const eqTs = v.ts.filter((c) => c.op === 'eq');
  if (eqTs.length > 0) where.push(`consensus_timestamp in (${eqTs.map((c) => p(c.v.toString())).join(', ')})`);
  for (const c of v.ts.filter((c) => c.op !== 'eq')) where.push(`consensus_timestamp ${SQL_OP[c.op]} ${p(c.v.toString())}`);
  const eqFrom = v.from.filter((f) => f.op === 'eq');
  if (eqFrom.length > 0) where.push(`sender_id in (${eqFrom.map((f) => p(f.id.toString())).join(', ')})`);
  for (const f of v.from.filter((f) => f.op !== 'eq')) where.push(`sender_id ${SQL_OP[f.op]} ${p(f.id.toString())}`);
  if (v.internal !== true) where.push('transaction_nonce = 0');
  if (v.block) {
    where.push(`consensus_timestamp between (select consensus_start from record_file where index = ${p(v.block.index)})
      and (select consensus_end from record_file where index = ${p(v.block.index)})`);
  }
  if (v.txIndexes.length > 0) where.push(`transaction_index in (${v.txIndexes.map((i) => p(i)).join(', ')})`);
  const rows = await database.db.query<{ ts: string }>(
    `select consensus_timestamp::text as ts from contract_result where ${where.join(' and ')}
     order by consensus_timestamp ${v.order ?? 'desc'}`,
    params,
  );
  return rows.map((r) => seconds(BigInt(r.ts)));
}

const resultTs = fc.integer({ min: -2, max: RESULTS + 1 }).chain((i) => fc.constantFrom(0n, 1n, -1n).map((d) => BASE_TS + BigInt(i) * STEP + d));
const blocks = RESULTS / PER_BLOCK;

/** Valid requests only; `eq`/`ne` timestamps always come with a range (without one, links repeat the request: quirk 9.7). */
const VARIANT: fc.Arbitrary<Variant> = fc
  .record({
    contract: fc.constantFrom(1001n, 1001n, 1002n, 1003n, 0n),
    pathChoice: fc.nat(),
    order: fc.constantFrom<Order | undefined>('asc', 'desc', undefined),
    limit: fc.integer({ min: 1, max: 7 }),
    ts: fc.oneof(
      fc.constant<Array<[string, bigint]>>([]),
      fc.array(fc.tuple(fc.constantFrom<string>('gt', 'gte', 'lt', 'lte', 'ne', 'eq'), resultTs), { minLength: 1, maxLength: 3 }),
    ),
    from: fc.oneof(
      { weight: 2, arbitrary: fc.constant<Array<[string, bigint, number]>>([]) },
      fc.array(fc.tuple(fc.constantFrom<string>('eq', 'eq', 'gt', 'lte', 'ne'), fc.constantFrom<bigint>(2001n, 2002n, 2003n), fc.nat()), { minLength: 1, maxLength: 2 }),
    ),
    internal: fc.constantFrom<boolean | undefined>(undefined, undefined, true, false),
    blockKind: fc.constantFrom('none', 'none', 'none', 'none', 'none', 'number', 'hex', 'hash64', 'hash96'),
    block: fc.integer({ min: -1, max: blocks }),
    txIndexes: fc.oneof(fc.constant<number[]>([]), fc.array(fc.integer({ min: 0, max: PER_BLOCK }), { minLength: 1, maxLength: 3 })),
  })
  .map((r): Variant => {
    const paths = PATHS[r.contract.toString()]!;
    const ts = r.ts.map(([op, v]) => ({ op, v }));
    // without a gt/gte/lt/lte value the link cannot advance (the reference's links repeat the request)
    if (ts.length > 0 && !ts.some((c) => c.op !== 'eq' && c.op !== 'ne')) ts.push({ op: 'lte', v: BASE_TS + BigInt(RESULTS) * STEP });
    const from = r.from.map(([op, id, choice]) => {
      const texts = SENDER_TEXT[id.toString()]!;
      return { op, id, text: texts[choice % texts.length]! };
    });
    let block: Variant['block'];
    const index = FIRST_BLOCK + r.block;
    const hash = `${((r.block + 256) % 256).toString(16).padStart(2, '0')}${'cd'.repeat(47)}`;
    if (r.blockKind === 'number') block = { kind: 'number', text: String(index), index };
    else if (r.blockKind === 'hex') block = { kind: 'number', text: `0x${index.toString(16)}`, index };
    else if (r.blockKind === 'hash64') block = { kind: 'hash', text: hash.slice(0, 64), index };
    else if (r.blockKind === 'hash96') block = { kind: 'hash', text: `0x${hash}`, index };
    return {
      contract: r.contract,
      path: paths[r.pathChoice % paths.length]!,
      order: r.order,
      limit: r.limit,
      ts,
      from,
      internal: r.internal,
      block,
      txIndexes: block ? r.txIndexes : [],
    };
  });

/**
 * The page sizes of the hand-picked walks. On real Citus every page of the network-wide listing is a
 * query over every shard of every monthly partition (0.3-0.7 s here), and the walks of all seven sizes
 * over its 320 results made 3,300 such pages (four of the five minutes of this file there): on Citus
 * the network-wide walks take two sizes, one that divides the results and one that does not; every
 * size runs on the other backends, and the random walks try others on Citus too.
 */
function limitsFor(backend: string, contract: bigint): number[] {
  return backend === 'postgres-citus' && contract === 0n ? [2, 7] : [1, 2, 3, 4, 5, 6, 7];
}

for (const backend of testBackends()) {
  describe(`results pagination (${backend})`, () => {
    let api: TestApp;

    before(async () => {
      // on the partitioned (v2) backends a newest-first page splits 25 s before the last record file's
      // end, in the middle of the data (src/contracts/common/newestFirst.ts)
      const config = testConfig({ HIERO_MIRROR_REST_DB_NEWESTFIRSTSPAN: '25s' });
      api = await openTestApp(backend, (db) => insertFixtures(db, data), { config });
    });

    after(() => api?.close());

    async function walk(v: Variant): Promise<string[]> {
      let url: string | null = `/api/v1/contracts/${v.path}/results?${queryString(v)}`;
      const seen: string[] = [];
      for (let pages = 0; url !== null; pages++) {
        assert.ok(pages <= RESULTS + 1, `no end: ${url}`);
        const response: { statusCode: number; body: string; headers: Record<string, unknown> } = await api.get(url);
        assert.equal(response.statusCode, 200, `${url} -> ${response.body}`);
        assert.equal(response.headers['cache-control'], 'public, max-age=1');
        const body = JSON.parse(response.body) as { results: Array<Record<string, unknown>>; links: { next: string | null } };
        assert.deepEqual(Object.keys(body), ['results', 'links']);
        assert.ok(body.results.length <= v.limit);
        for (const result of body.results) {
          assert.deepEqual(Object.keys(result), RESULT_KEYS);
          if (v.contract !== 0n) assert.equal(result.contract_id, `0.0.${v.contract}`);
          seen.push(String(result.timestamp));
        }
        if (body.links.next !== null) {
          assert.equal(body.results.length, v.limit, 'a next link only follows a full page');
          assert.ok(body.links.next.startsWith(`/api/v1/contracts/${v.path}/results?`), body.links.next);
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
        { numRuns: Number(process.env.RESULTS_PAGINATION_RUNS ?? 200), seed: 20251123 },
      );
      // the generator must exercise real paging, not only empty answers
      assert.ok(nonEmpty > runs / 2 && multiPage > runs / 4, `${runs} runs, ${nonEmpty} non-empty, ${multiPage} with several pages`);
    });

    test('hand-picked starting points', async () => {
      const t = (i: number) => BASE_TS + BigInt(i) * STEP;
      const cases: Variant[] = [];
      const none = { ts: [], from: [], internal: undefined, block: undefined, txIndexes: [] };
      for (const contract of [1001n, 1002n, 1003n, 0n]) {
        const path = PATHS[contract.toString()]![0]!;
        for (const order of ['asc', 'desc'] as const) {
          for (const limit of limitsFor(backend, contract)) {
            cases.push({ ...none, contract, path, order, limit });
            cases.push({ ...none, contract, path, order, limit, internal: true });
          }
          cases.push({ ...none, contract, path, order, limit: 3, ts: [{ op: 'gte', v: t(10) }, { op: 'lt', v: t(90) }, { op: 'ne', v: t(20) }] });
          cases.push({ ...none, contract, path, order, limit: 2, from: [{ op: 'eq', id: 2002n, text: `0x${EVM_2002}` }, { op: 'eq', id: 2001n, text: '2001' }] });
          cases.push({ ...none, contract, path, order, limit: 2, internal: true, block: { kind: 'number', text: '503', index: 503 } });
          cases.push({ ...none, contract, path, order, limit: 1, block: { kind: 'number', text: '503', index: 503 }, txIndexes: [1, 2, 3] });
          cases.push({ ...none, contract, path, order, limit: 1, ts: [{ op: 'eq', v: t(3) }, { op: 'lte', v: t(300) }] });
        }
      }
      for (const v of cases) assert.deepEqual(await walk(v), await expected(api.database, v), `${v.path}?${queryString(v)}`);
    });
  });
}
