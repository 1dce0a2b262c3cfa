/** A route's answer (src/http/answer/answer.ts): the body encoded once, its ETag the reference's, its next link. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Encoded, JsonText } from '../../../src/format/json.ts';
import { answerBytes, answerOf, weakEtag } from '../../../src/http/answer/answer.ts';

test('ETags are the reference\'s (Express\'s etag module, weak): length in hex and 27 characters of base64 sha1', () => {
  assert.equal(weakEtag(Buffer.from('hello')), 'W/"5-qvTGHdzF6KLavt4PO0gs2a6pQ00"');
  assert.equal(weakEtag(Buffer.alloc(0)), 'W/"0-2jmj7l5rSw0yVb/vlWAYkK/YBwk"');
});

test('a page as an answer: the same bytes, whichever form its body has, hashed for the ETag; the next link and settledAfter kept', () => {
  const expected = Buffer.from('{"a":1}');
  for (const body of [{ a: 1 }, new JsonText('{"a":1}'), new Encoded({ a: 1 }, () => Buffer.from('{"a":1}'))]) {
    const answer = answerOf({ body }, 'public, max-age=1');
    assert.deepEqual(answer.body, expected);
    assert.equal(answer.etag, weakEtag(expected));
    assert.equal(answer.status, 200);
    assert.equal(answer.cacheControl, 'public, max-age=1');
    assert.equal(answer.link, undefined);
    assert.equal('settledAfter' in answer, false);
  }
  const next = answerOf({ body: {}, next: '/api/v1/contracts?limit=1', settledAfter: 5n, status: 206 }, 'no-store');
  assert.equal(next.link, '</api/v1/contracts?limit=1>; rel="next"');
  assert.equal(next.settledAfter, 5n);
  assert.equal(next.status, 206);
  assert.ok(answerBytes(next) > next.body.length + next.etag.length + next.link!.length);
});
