/**
 * The host a request names (src/http/request/host.ts): the `hostname[:port]` rule, and which of
 * the target, Host and X-Forwarded-Host it is read from.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { hostProblem, hostnameOf, requestHost } from '../../../src/http/request/host.ts';

test('a host is hostname[:port], a port from 1 to 65535; lists and anything else are named', () => {
  for (const host of ['testnet.x', 'localhost:5551', 'API.Example.com.', '[::1]:8080', '127.0.0.1', 'mirror_rest', 'x:0080', 'x:65535']) {
    assert.equal(hostProblem(host), undefined, host);
  }
  for (const host of ['previewnet.x, testnet.x', 'a,b']) assert.equal(hostProblem(host), 'a list of hosts', host);
  for (const host of ['x:0', 'x:99999', 'x:abc', 'x:', 'x:123456', '[::1]:0']) assert.equal(hostProblem(host), 'the port is not a number from 1 to 65535', host);
  for (const host of ['', 'evil.com/<script>', 'a b', 'user@x', 'x:1:2', '-bad-.com', 'a'.repeat(300), '[::1', 'x"y']) {
    assert.equal(hostProblem(host), 'not hostname[:port]', host);
  }
  assert.equal(hostnameOf('API.Example.com.:8443'), 'API.Example.com.');
  assert.equal(hostnameOf('[::1]:8080'), '[::1]');
  assert.equal(hostnameOf('x:99999'), undefined);
});

test('the host a request names: the absolute-form authority over Host; the trusted last X-Forwarded-Host over both', () => {
  const headers = { host: 'testnet.x' };
  assert.equal(requestHost({ url: '/api', headers }, false), 'testnet.x');
  assert.equal(requestHost({ url: 'http://previewnet.x:1/api', headers }, false), 'previewnet.x:1');
  const forwarded = { ...headers, 'x-forwarded-host': 'a.example, b.example ' };
  assert.equal(requestHost({ url: 'http://previewnet.x/api', headers: forwarded }, false), 'previewnet.x');
  assert.equal(requestHost({ url: 'http://previewnet.x/api', headers: forwarded }, true), 'b.example');
});
