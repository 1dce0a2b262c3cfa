/**
 * A body to JSON (src/rpc/body.ts): its nesting and, for a batch, its requests counted from its
 * bytes before it is parsed (strings, escapes and nested values counted right), the relay's
 * messages for each limit.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { RpcError } from '../../src/rpc/errors.ts';
import { parseJson, shapeOf } from '../../src/rpc/body.ts';

const shape = (text: string) => shapeOf(Buffer.from(text), 32);

test('the shape of a body: depth, and the elements of a top-level array', () => {
  assert.deepEqual(shape('{"a":1,"b":[1,2,3]}'), { depth: 2, items: undefined });
  assert.deepEqual(shape(' [ ] '), { depth: 1, items: 0 });
  assert.deepEqual(shape('[{"a":[1,2]},{"b":"x,]}[\\"{"}, 3 ,"s"]'), { depth: 3, items: 4 });
  assert.deepEqual(shape('["\\\\",","]'), { depth: 1, items: 2 });
  assert.deepEqual(shape('42'), { depth: 0, items: undefined });
  assert.equal(shapeOf(Buffer.from('['.repeat(100)), 10).depth, 11, 'stops past the limit');
});

test('a batch over its limit: the relay -32203 with its count, before any of it is parsed', () => {
  const batch = `[${Array.from({ length: 50_000 }, () => '{"jsonrpc":"2.0","id":1,"method":"eth_chainId"}').join(',')}]`;
  assert.throws(
    () => parseJson(Buffer.from(batch), 32, 100),
    (err: unknown) => err instanceof RpcError && err.code === -32203 && err.message === 'Batch request amount 50000 exceeds max 100' && err.kind === 'relay',
  );
  assert.equal((parseJson('[1,2,3]', 32, 3) as number[]).length, 3);
  assert.throws(() => parseJson('[[[1]]]', 2), (err: unknown) => err instanceof RpcError && err.code === -32700 && /deeper than 2/.test(err.message));
  assert.throws(() => parseJson('[1,', 32, 100), (err: unknown) => err instanceof RpcError && err.message === 'Parse error');
});
