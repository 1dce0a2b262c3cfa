import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { encodeEntityId, entityIdToString, longZeroAddress, longZeroToId } from '../../src/format/entityId.ts';
import { hex, hexPadded } from '../../src/format/hex.ts';
import { toJson, utf8Join } from '../../src/format/json.ts';
import { compareDecimal } from '../../src/format/decimal.ts';
import { formatKey } from '../../src/format/key.ts';
import { formatTimestamp, timestampToNs } from '../../src/format/timestamp.ts';

test('entity ids', () => {
  assert.equal(entityIdToString('5001'), '0.0.5001');
  assert.equal(entityIdToString('0'), null);
  assert.equal(entityIdToString(encodeEntityId(1n, 2n, 3n)), '1.2.3');
  assert.equal(entityIdToString(274877906945n), '0.1.1');
  assert.equal(longZeroAddress('5001'), '0x0000000000000000000000000000000000001389');
  assert.equal(longZeroToId('00000000000000000000000000000000000003e9', 0n, 0n), 1001n);
  assert.equal(longZeroToId('70f2b2914a2a4b783faefb75f459a580616fcb5e', 0n, 0n), undefined);
});

test('timestamps', () => {
  assert.equal(formatTimestamp('187654000123456'), '187654.000123456');
  assert.equal(formatTimestamp('5'), '0.000000005');
  assert.equal(timestampToNs('1.5'), '1500000000');
  assert.equal(timestampToNs('987654.000123456'), '987654000123456');
});

test('hex', () => {
  assert.equal(hex(null), '0x');
  assert.equal(hex('0001'), '0x0001');
  assert.equal(hex(''), '0x');
  assert.equal(hexPadded('0123', 64), `0x${'0'.repeat(60)}0123`);
  assert.equal(hexPadded('', 64), '0x');
});

test('admin keys', () => {
  const k = 'aa'.repeat(32);
  assert.deepEqual(formatKey(`1220${k}`), { _type: 'ED25519', key: k });
  assert.deepEqual(formatKey(`2a28080112240a221220${k}`), { _type: 'ED25519', key: k });
  const e = `02${'bb'.repeat(32)}`;
  assert.deepEqual(formatKey(`32250a233a21${e}`), { _type: 'ECDSA_SECP256K1', key: e });
  assert.equal(formatKey('3200'), null);
  assert.deepEqual(formatKey(''), { _type: 'ProtobufEncoded', key: '' });
  assert.deepEqual(formatKey('010101'), { _type: 'ProtobufEncoded', key: '010101' });
});

test('json keeps key order and prints 64-bit integers exactly', () => {
  assert.equal(toJson({ b: 1, a: [9223372036854775805n, null, 'x'] }), '{"b":1,"a":[9223372036854775805,null,"x"]}');
});

test('json: a client string that looks like a marker stays a string', () => {
  assert.equal(toJson({ memo: '\u0000abc123', n: -9223372036854775808n, m: [null, true] }), '{"memo":"\\u0000abc123","n":-9223372036854775808,"m":[null,true]}');
});

test('utf8Join writes the bytes of the joined text, whatever the parts and wherever its chunks end', () => {
  const text = fc.oneof(fc.string({ unit: 'binary', maxLength: 40 }), fc.string({ unit: 'grapheme', minLength: 1_000, maxLength: 8_000 }));
  fc.assert(
    fc.property(fc.string({ unit: 'binary', maxLength: 12 }), fc.array(text, { maxLength: 30 }), fc.constantFrom('', ',', 'é', '\u{1F600}'), fc.string({ unit: 'binary', maxLength: 12 }), (head, parts, separator, tail) => {
      assert.deepEqual(utf8Join(head, parts, separator, tail), Buffer.from(head + parts.join(separator) + tail, 'utf8'));
    }),
    { numRuns: 200 },
  );
  // a page's size: several chunks, each boundary between two parts
  const parts = Array.from({ length: 100 }, (_, i) => `{"n":${i},"x":"${'ab'.repeat(700 + i)}","é":"\u{1F600}"}`);
  assert.deepEqual(utf8Join('{"logs":[', parts, ',', ']}'), Buffer.from(`{"logs":[${parts.join(',')}]}`, 'utf8'));
  assert.deepEqual(utf8Join('[', [], ',', ']'), Buffer.from('[]'));
});

test('ids as database text (shard 0 / realm 0 fast path) render exactly as bigints do', () => {
  fc.assert(
    fc.property(fc.oneof(fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }), fc.bigInt({ min: 0n, max: 2n ** 39n })), (id) => {
      assert.equal(entityIdToString(id.toString()), entityIdToString(id));
      assert.equal(longZeroAddress(id.toString()), longZeroAddress(id));
    }),
    { numRuns: 5000 },
  );
  assert.equal(longZeroAddress('274877906943'), '0x0000000000000000000000000000003fffffffff');
  assert.equal(entityIdToString('274877906944'), '0.1.0');
});

test('int8 texts compare as the numbers they write, sign and length included', () => {
  const sign = (n: number) => (n < 0 ? -1 : n > 0 ? 1 : 0);
  const int8 = fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n });
  fc.assert(
    fc.property(int8, int8, (a, b) => {
      assert.equal(sign(compareDecimal(`${a}`, `${b}`)), a < b ? -1 : a > b ? 1 : 0);
    }),
    { numRuns: 2000 },
  );
  assert.ok(compareDecimal('9', '10') < 0);
  assert.ok(compareDecimal('-9', '-10') > 0);
  assert.ok(compareDecimal('-1', '0') < 0);
  assert.equal(compareDecimal('1747353600123456789', '1747353600123456789'), 0);
});
