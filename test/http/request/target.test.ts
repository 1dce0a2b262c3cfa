/**
 * The request target (src/http/request/target.ts): the absolute form read as the router and the
 * reference read it, the other forms as sent.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { rawPath, rawSearch, rawSegments, targetAuthority, targetPath } from '../../../src/http/request/target.ts';

test('absolute form: its authority; the path and query without scheme and authority, as the reference reads them', () => {
  const url = 'http://evil.example:666/api/v1/contracts/results?limit=1';
  assert.equal(targetAuthority(url), 'evil.example:666');
  assert.equal(rawPath(url), '/api/v1/contracts/results');
  assert.equal(rawSearch(url), 'limit=1');
  assert.equal(targetPath(url), '/api/v1/contracts/results');
  // the case of the path is kept (it picks the reference's cache-control)
  assert.equal(rawPath('HTTPS://X/API/v1/contracts'), '/API/v1/contracts');
  assert.equal(targetAuthority('HTTPS://X/API/v1/contracts'), 'X');
  assert.equal(rawPath('http://x'), '/');
  assert.equal(targetPath('http://x?limit=1'), '/');
  assert.equal(rawSearch('http://x?limit=1'), 'limit=1');
  assert.equal(targetAuthority('http:///api'), '');
  assert.equal(targetAuthority('http://user:pw@x/api'), 'user:pw@x');
});

test('other forms: origin form as sent, no authority; the asterisk form and other schemes have no path', () => {
  assert.equal(targetAuthority('/api/v1/contracts'), undefined);
  assert.equal(targetAuthority('//evil.example/api'), undefined);
  assert.equal(targetPath('//evil.example/api?x=1'), '//evil.example/api');
  assert.equal(rawPath('/api/v1/contracts?limit=1'), '/api/v1/contracts');
  for (const target of ['*', 'ftp://x/api/v1/contracts', 'http:/api']) {
    assert.equal(targetAuthority(target), undefined, target);
    assert.equal(targetPath(target), undefined, target);
  }
});

test('rawSegments: each segment of the route as sent, literals by themselves, parameters by name', () => {
  assert.deepEqual(rawSegments('/api/v1/contracts/results/logs', '/api/v1/CONTRACTS/Results/%6Cogs/'), {
    api: 'api',
    v1: 'v1',
    contracts: 'CONTRACTS',
    results: 'Results',
    logs: '%6Cogs',
  });
  assert.deepEqual(rawSegments('/api/v1/contracts/:contractId/results/:timestamp(^[0-9.]+$)', '/api/v1/contracts/0.0.%31/results/1.2'), {
    api: 'api',
    v1: 'v1',
    contracts: 'contracts',
    contractId: '0.0.%31',
    results: 'results',
    timestamp: '1.2',
  });
});
