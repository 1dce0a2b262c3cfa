/** The request toolkit, tested once: value parsers, the one Range type and its narrowing, SQL templates. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { loadConfig } from '../../../src/config/config.ts';
import { BYTES, INT32, INT64, type Operator, contains, rangeOf, rangeSql } from '../../../src/db/range.ts';
import { and, direction, join, or, sql } from '../../../src/db/sql.ts';
import { formatTimestamp } from '../../../src/format/timestamp.ts';
import { contractListingRef, contractLookupRef, parseContractPath } from '../../../src/http/request/contract.ts';
import {
  isLaxNumber,
  paddedBytes32,
  parseDottedId,
  parseEncodedId,
  parseHash32,
  parseLimit,
  parsePgInt4,
  parseTimestamp,
  parseTransactionId,
  trimmedBytes,
} from '../../../src/http/request/values.ts';
import { ClientError } from '../../../src/http/request/errors.ts';

const config = loadConfig({}, '/nonexistent');
const OPERATORS: Operator[] = ['eq', 'ne', 'lt', 'lte', 'gt', 'gte'];

/** What one condition means, for the property below. */
function holds(x: bigint, op: Operator, v: bigint): boolean {
  switch (op) {
    case 'eq':
      return x === v;
    case 'ne':
      return x !== v;
    case 'lt':
      return x < v;
    case 'lte':
      return x <= v;
    case 'gt':
      return x > v;
    case 'gte':
      return x >= v;
  }
}

test('Range: a value is in the range exactly when it meets every condition (eq values: any of them)', () => {
  const condition = fc.record({ operator: fc.constantFrom(...OPERATORS), value: fc.bigInt(-20n, 20n) });
  fc.assert(
    fc.property(fc.array(condition, { maxLength: 6 }), fc.bigInt(-25n, 25n), (conditions, x) => {
      const range = rangeOf(conditions, INT64);
      const eqs = conditions.filter((c) => c.operator === 'eq');
      const expected =
        conditions.filter((c) => c.operator !== 'eq').every((c) => holds(x, c.operator, c.value)) &&
        (eqs.length === 0 || eqs.some((c) => c.value === x));
      assert.equal(contains(range, x, INT64), expected);
      if (range.empty) assert.equal(contains(range, x, INT64), false);
      // integer bounds are always inclusive after narrowing
      assert.ok(!range.lower || range.lower.inclusive);
      assert.ok(!range.upper || range.upper.inclusive);
    }),
    { numRuns: 2000 },
  );
});

test('Range: bounds past the column type empty it; bytes keep exclusive bounds', () => {
  assert.equal(rangeOf([{ operator: 'gt', value: 2147483647n }], INT32).empty, true);
  assert.equal(rangeOf([{ operator: 'gt', value: 2147483646n }], INT32).empty, false);
  assert.equal(rangeOf([{ operator: 'lt', value: -9223372036854775808n }], INT64).empty, true);
  const slot = rangeOf([{ operator: 'gt', value: Buffer.from('03', 'hex') }], BYTES);
  assert.deepEqual(slot.lower, { value: Buffer.from('03', 'hex'), inclusive: false });
  assert.equal(contains(slot, Buffer.from('0300', 'hex'), BYTES), true);
  assert.equal(contains(slot, Buffer.from('03', 'hex'), BYTES), false);
  assert.equal(rangeOf([{ operator: 'gte', value: Buffer.from('05', 'hex') }, { operator: 'lt', value: Buffer.from('05', 'hex') }], BYTES).empty, true);
});

test('rangeSql: = for one value, any() for several, bounds and exclusions as parameters', () => {
  const column = sql`t.ts`;
  const compiled = (conditions: Array<{ operator: Operator; value: bigint }>) => and(rangeSql(column, rangeOf(conditions, INT64), 'bigint', INT64)).compile();
  const compile = (conditions: Array<{ operator: Operator; value: bigint }>) => {
    const { text, values } = compiled(conditions);
    return { text, values };
  };
  assert.deepEqual(compile([]), { text: 'true', values: [] });
  assert.deepEqual(compile([{ operator: 'eq', value: 5n }, { operator: 'eq', value: 5n }]), { text: 't.ts = $1', values: ['5'] });
  assert.deepEqual(compile([{ operator: 'gte', value: 5n }, { operator: 'lte', value: 5n }]), { text: 't.ts = $1', values: ['5'] });
  assert.deepEqual(compile([{ operator: 'eq', value: 1n }, { operator: 'eq', value: 2n }, { operator: 'gt', value: 0n }, { operator: 'ne', value: 3n }]), {
    text: 't.ts = any($1::bigint[]) and t.ts >= $2 and t.ts <> all($3::bigint[])',
    values: [['1', '2'], '1', ['3']],
  });
});

test('sql: values never reach the text; fragments nest and are renumbered', () => {
  fc.assert(
    fc.property(fc.string(), fc.string(), (a, b) => {
      const inner = sql`x = ${a}`;
      const { text, values } = sql`select ${b} where ${inner} and ${join([inner, sql`y = ${b}`], ' or ')} order by z ${direction('desc')}`.compile();
      assert.equal(text, 'select $1 where x = $2 and x = $3 or y = $4 order by z desc');
      assert.deepEqual(values, [b, a, a, b]);
    }),
  );
  assert.equal(or([]).compile().text, 'false');
  assert.equal(or([sql`a`, sql`b`]).compile().text, '(a) or (b)');
});

test('timestamps: seconds.nanos within int64, round trip with the formatter', () => {
  assert.equal(parseTimestamp('1.5'), 1_500_000_000n);
  assert.equal(parseTimestamp('9223372036.854775807'), 9223372036854775807n);
  for (const bad of ['9223372036.854775808', '9999999999', '1.', '.5', '1.1234567890', ' 1', '-1', '1e5']) assert.equal(parseTimestamp(bad), undefined, bad);
  fc.assert(
    fc.property(fc.bigInt(0n, 9223372036854775807n), (ns) => {
      assert.equal(parseTimestamp(formatTimestamp(ns)!), ns);
    }),
  );
});

test('integers: PostgreSQL-readable int4 (whitespace and sign allowed), lax numbers, limits', () => {
  assert.equal(parsePgInt4(' 1'), 1);
  assert.equal(parsePgInt4('1 '), 1);
  assert.equal(parsePgInt4('+7'), 7);
  assert.equal(parsePgInt4('-0'), 0);
  for (const bad of ['-1', '1.5', '1e0', '0x1', '', '2147483648', '1 1']) assert.equal(parsePgInt4(bad), undefined, bad);
  fc.assert(
    fc.property(fc.integer({ min: 0, max: 2147483647 }), fc.constantFrom('', ' ', '\t', '  '), fc.constantFrom('', ' ', '\n'), (n, before, after) => {
      const text = `${before}${n}${after}`;
      assert.equal(parsePgInt4(text), n);
      assert.ok(isLaxNumber(text), 'every int4 text passes the reference validation first');
    }),
  );
  assert.equal(parseLimit('00002', 100), 2);
  assert.equal(parseLimit('500', 100), 100);
  for (const bad of ['0', '-1', ' 1', '1.0', '9223372036854775808']) assert.equal(parseLimit(bad, 100), undefined, bad);
});

test('entity ids: dotted forms, long-zero addresses and encoded integers within the limits', () => {
  assert.equal(parseDottedId('0.0.1001', config), 1001n);
  assert.equal(parseDottedId('1.1001', config), (1n << 38n) | 1001n);
  assert.equal(parseDottedId('0.0.00000000000000000000000000000000000003e9', config), 1001n);
  for (const bad of ['0.65536.1', '1024.0.1', '0.0.274877906944', '1.0.00000000000000000000000000000000000003e9', '1.2.3.4']) {
    assert.equal(parseDottedId(bad, config), undefined, bad);
  }
  assert.equal(parseEncodedId('-1'), -1n);
  assert.equal(parseEncodedId('9223372036854775808'), undefined);
});

test('contract path: syntax 400, then the lookup (endpoint 1) and listing forms', () => {
  const path = (text: string) => parseContractPath(text);
  assert.throws(() => path('abc'), (err: unknown) => err instanceof ClientError && err.messages[0] === 'Invalid parameter: contractid');
  assert.deepEqual(contractLookupRef(path('1001'), config), { kind: 'id', id: 1001n });
  assert.deepEqual(contractListingRef(path('274877906945'), config), { kind: 'id', id: 274877906945n });
  assert.throws(() => contractLookupRef(path('274877906945'), config), (err: unknown) => err instanceof ClientError && err.messages[0] === 'Invalid entity ID "0.0.274877906945"');
  assert.deepEqual(contractListingRef(path('0x70f2b2914a2a4b783faefb75f459a580616fcb5e'), config), {
    kind: 'evm',
    shard: null,
    realm: null,
    hex: '70f2b2914a2a4b783faefb75f459a580616fcb5e',
  });
  assert.deepEqual(contractListingRef(path('1.2.70f2b2914a2a4b783faefb75f459a580616fcb5e'), config), {
    kind: 'evm',
    shard: '1',
    realm: '2',
    hex: '70f2b2914a2a4b783faefb75f459a580616fcb5e',
  });
});

test('hashes, transaction ids, slots', () => {
  assert.equal(parseHash32(`0x${'Ab'.repeat(32)}`)?.toString('hex'), 'ab'.repeat(32));
  for (const bad of [`0X${'a'.repeat(64)}`, 'a'.repeat(62), 'a'.repeat(96)]) assert.equal(parseHash32(bad), undefined, bad);
  assert.deepEqual(parseTransactionId('0.0.1001-1746064794-5', config), { entity: '0.0.1001', payer: 1001n, validStartNs: 1746064794000000005n });
  assert.deepEqual(parseTransactionId('0.0.1001-01746064794-000000005', config)?.validStartNs, 1746064794000000005n);
  assert.equal(parseTransactionId('0.0.274877906944-1-1', config)?.payer, undefined);
  for (const bad of ['0.0.1001@1.2', '1001-1-1', '0.0.1001-1-1234567890', '0.0.1001-9999999999999999999-1']) {
    assert.equal(parseTransactionId(bad, config), undefined, bad);
  }
  assert.equal(trimmedBytes('0x0003').toString('hex'), '03');
  assert.equal(trimmedBytes('0').length, 0);
  assert.equal(paddedBytes32('3').toString('hex'), '3'.padStart(64, '0'));
});

test('transaction path: hash or id, the reference messages otherwise', async () => {
  const { parseTransactionRef } = await import('../../../src/http/request/transaction.ts');
  assert.deepEqual(parseTransactionRef('0.0.1001-1746064794-5', config), { kind: 'id', payer: 1001n, validStartNs: 1746064794000000005n });
  assert.equal(parseTransactionRef(`0x${'a'.repeat(64)}`, config).kind, 'hash');
  const message = (text: string) => {
    try {
      parseTransactionRef(text, config);
    } catch (err) {
      return (err as ClientError).messages[0];
    }
    return undefined;
  };
  assert.match(message('a'.repeat(96))!, /^Invalid Transaction id\. Please use "shard\.realm\.num-sss-nnn" format/);
  assert.match(message('0.0.1001@1.2')!, /^Invalid Transaction id/);
  assert.equal(message('0.0.274877906944-1-1'), 'Invalid entity ID "0.0.274877906944"');
});
