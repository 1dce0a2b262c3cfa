/** asciiJoin (src/format/ascii.ts): the same bytes as the texts joined with commas and encoded as UTF-8. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { asciiJoin } from '../../src/format/ascii.ts';

test('asciiJoin: the UTF-8 bytes of the texts joined by commas; continued, with a comma before the first', () => {
  assert.deepEqual(asciiJoin([]), Buffer.alloc(0));
  assert.deepEqual(asciiJoin([], true), Buffer.alloc(0));
  assert.equal(asciiJoin(['{"a":1}']).toString(), '{"a":1}');
  assert.equal(asciiJoin(['{"a":1}'], true).toString(), ',{"a":1}');
  assert.equal(asciiJoin(['', 'x', '']).toString(), ',x,');
  // random ASCII texts, of strings built by concatenation too (as the log texts are)
  let seed = 7;
  const random = () => ((seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648) / 2_147_483_648);
  for (let round = 0; round < 200; round++) {
    const texts = Array.from({ length: Math.floor(random() * 20) }, () => {
      let text = '';
      for (let i = Math.floor(random() * 40); i > 0; i--) text += String.fromCharCode(Math.floor(random() * 128));
      return `{"k":"${text}"}`;
    });
    const continued = random() < 0.5;
    const expected = Buffer.from(`${continued && texts.length > 0 ? ',' : ''}${texts.join(',')}`, 'utf8');
    assert.deepEqual(asciiJoin(texts, continued), expected);
  }
});
