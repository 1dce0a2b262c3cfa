/**
 * The conformance suite on one network of a two-network server (issue 28): every spec's data is the
 * testnet network's, requested with a testnet Host, while the default network (previewnet) holds a
 * demo network: an answer computed on the wrong database, or taken from its cache, would differ.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { runConformance } from '../support/conformanceRun.ts';


test('every spec answers byte for byte on the testnet network of a two-network server', { timeout: 600_000 }, async () => {
  const run = await runConformance({ CONFORMANCE_NETWORKS: '1' });
  assert.equal(run.code, 0, run.tail);
  assert.ok(run.passed !== undefined && run.passed > 600 && run.failed === 0, run.tail);
});
