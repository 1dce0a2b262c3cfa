/**
 * The live feed's fan-out (issue 26): per tick, the logs are matched once per distinct filter, and
 * every subscriber of one filter gets the same batch, encoded once, whatever the subscriber count.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { sql } from '../../../../src/db/sql.ts';
import { writeBlock } from '../../../../src/demo/live.ts';
import { seedDemo } from '../../../../src/demo/seed.ts';
import { type FeedSubscriber, type LiveBatch, type LiveLog, LogFeed } from '../../../../src/contracts/logs/live/feed.ts';
import { type TestDatabase, openTestDatabase } from '../../../support/database.ts';

let database: TestDatabase;

before(async () => {
  database = await openTestDatabase('embedded');
  await seedDemo(database.db, { scale: 0.1 });
});
after(() => database?.close());

interface Spy extends FeedSubscriber {
  batches: LiveBatch[];
  matched: number;
}

function spy(filterKey: string, wanted: (log: LiveLog) => boolean): Spy {
  const subscriber: Spy = {
    filterKey,
    batches: [],
    matched: 0,
    matches(log) {
      subscriber.matched++;
      return wanted(log);
    },
    deliver(batch) {
      subscriber.batches.push(batch);
    },
  };
  return subscriber;
}

test('one match per log and filter, one batch and one encoding for every subscriber of a filter', async () => {
  const { db } = database;
  const feed = new LogFeed(db, 3_600_000, (err) => assert.fail(String(err)));
  const start = await feed.position();
  const all = Array.from({ length: 50 }, () => spy('all', () => true));
  const none = spy('none', () => false);
  const odd = Array.from({ length: 3 }, () => spy('odd', (log) => log.index % 2 === 1));
  for (const subscriber of [...all, none, ...odd]) feed.attach(subscriber);
  try {
    await writeBlock(db, start + 2_000_000_000n);
    await writeBlock(db, start + 4_000_000_000n);
    await feed.tick();
    const [{ n }] = (await db.query<{ n: string }>(sql`select count(*)::text as n from contract_log where consensus_timestamp > ${start.toString()}`)) as [{ n: string }];
    const logs = Number(n);
    assert.ok(logs > 0, 'the blocks hold logs');
    // each filter saw each log once, however many subscribers share it
    const matchedAll = all.reduce((sum, s) => sum + s.matched, 0);
    assert.equal(matchedAll, logs);
    assert.equal(odd.reduce((sum, s) => sum + s.matched, 0), logs);
    assert.equal(none.matched, logs);
    assert.equal(none.batches[0]?.logs.length, 0);
    // one batch per filter, the same object for each of its subscribers
    for (const group of [all, odd]) {
      for (const s of group) {
        assert.equal(s.batches.length, 1);
        assert.equal(s.batches[0], group[0]!.batches[0]);
      }
    }
    const batch = all[0]!.batches[0]!;
    assert.equal(batch.logs.length, logs);
    assert.ok(odd[0]!.batches[0]!.logs.every((log) => log.index % 2 === 1));
    // in (consensus_timestamp, index) order
    for (let i = 1; i < batch.logs.length; i++) {
      const [a, b] = [batch.logs[i - 1]!, batch.logs[i]!];
      assert.ok(a.timestamp < b.timestamp || (a.timestamp === b.timestamp && a.index < b.index));
    }
    // encoded once: the chunk is the same bytes for every caller, each log encoded once
    let encodings = 0;
    const encode = (log: LiveLog) => {
      encodings++;
      return `${log.timestamp}-${log.index}\n`;
    };
    const chunk = batch.chunk(encode);
    assert.equal(batch.chunk(encode), chunk);
    assert.equal(encodings, logs);
    assert.equal(chunk.toString(), batch.logs.map((log) => `${log.timestamp}-${log.index}\n`).join(''));
    assert.equal(feed.through, start + 4_000_000_000n);
  } finally {
    feed.stop();
  }
});
