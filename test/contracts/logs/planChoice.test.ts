/**
 * Which log searches are planned per execution (perExecution, src/contracts/logs/planChoice.ts): the rules
 * measured in docs/performance.md "Plans and plan choice".
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { perExecution } from '../../../src/contracts/logs/planChoice.ts';
import type { TopicKey } from '../../../src/contracts/logs/params.ts';
import type { DbLayout } from '../../../src/db/layout.ts';

const layout = (topicIndexes: boolean): DbLayout => ({ schema: 'v1', citus: false, partitioned: false, topicIndexes });
const topic = (byte: number) => Buffer.alloc(32, byte);
const search = (contractId: bigint, topics: Array<[TopicKey, number[]]>) => ({
  contractId,
  contractIds: undefined,
  topics: new Map(topics.map(([key, values]) => [key, values.map(topic)] as const)),
});

test('no topic, or one event signature alone: a cached plan, with or without the topic indexes', () => {
  for (const indexes of [false, true]) {
    for (const contractId of [0n, 1001n]) {
      assert.equal(perExecution(search(contractId, []), layout(indexes)), false);
      assert.equal(perExecution(search(contractId, [['topic0', [1]]]), layout(indexes)), false);
    }
  }
});

test('every contract\'s logs with any other topic search: planned per execution', () => {
  for (const indexes of [false, true]) {
    assert.equal(perExecution(search(0n, [['topic0', [1, 2]]]), layout(indexes)), true);
    assert.equal(perExecution(search(0n, [['topic1', [1]]]), layout(indexes)), true);
    assert.equal(perExecution(search(0n, [['topic0', [1]], ['topic2', [3]]]), layout(indexes)), true);
  }
});

test('one contract\'s topic search other than a signature alone: per execution only with the topic indexes', () => {
  assert.equal(perExecution(search(1001n, [['topic0', [1]], ['topic1', [2]]]), layout(false)), false);
  assert.equal(perExecution(search(1001n, [['topic0', [1]], ['topic1', [2]]]), layout(true)), true);
  assert.equal(perExecution(search(1001n, [['topic3', [2]]]), layout(true)), true);
  assert.equal(perExecution({ ...search(0n, [['topic1', [2]]]), contractIds: [1001n] }, layout(false)), false);
});
