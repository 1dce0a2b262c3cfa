/**
 * eth_subscribe's subscriptions, fed by the process's live logs feed (src/contracts/logs/live/feed.ts):
 * one statement per tick reads the new record files and their logs for every subscription and event
 * stream of the database; each `logs` subscription is a feed subscriber with its filter (contracts,
 * topics with OR per position), each matching log one `eth_subscription` notification as the relay
 * sends it. `newHeads` subscriptions share one read of the new blocks' headers per tick that has any.
 */
import type { Config } from '../config/config.ts';
import type { Db } from '../db/db.ts';
import type { FeedSubscriber, LiveLog } from '../contracts/logs/live/feed.ts';
import { feedOf } from '../contracts/logs/live/stream.ts';
import { TOPIC_KEYS, type TopicKey } from '../contracts/logs/params.ts';
import { headJson, headsAfter } from './heads.ts';
import { rpcLogJson } from './logView.ts';

/** Where a subscription's notifications go; false: the connection is gone or too slow (the subscription ends). */
export type Send = (text: string) => boolean;

const logJsonCache = new WeakMap<LiveLog, string>();
const logText = (log: LiveLog): string => {
  let text = logJsonCache.get(log);
  if (text === undefined) logJsonCache.set(log, (text = rpcLogJson(log.view)));
  return text;
};

const notification = (id: string, result: string) => `{"jsonrpc":"2.0","method":"eth_subscription","params":{"result":${result},"subscription":"${id}"}}`;

export interface LogsFilter {
  /** undefined: every contract. */
  contracts: Set<string> | undefined;
  topics: Map<TopicKey, Buffer[]>;
}

/** Headers read once per new newest block for every newHeads subscription of a database. */
type Head = { number: bigint; text: string };
const heads = new WeakMap<Db, { through: bigint | undefined; reading?: Promise<Head[]>; last: bigint | undefined }>();

function newHeads(db: Db, throughBlock: bigint | undefined, after: bigint): Promise<Head[]> {
  let state = heads.get(db);
  if (state === undefined) heads.set(db, (state = { through: undefined, last: undefined }));
  if (state.reading === undefined || state.through !== throughBlock || state.last !== after) {
    state.through = throughBlock;
    state.last = after;
    state.reading = headsAfter(db, after, 100).then((rows) => rows.map((row) => ({ number: BigInt(row.index), text: headJson(row) })));
  }
  return state.reading;
}

export interface Subscription {
  id: string;
  stop(): void;
}

/** A `logs` subscription: from the next block on, every matching log as a notification. */
export async function subscribeLogs(db: Db, config: Config, id: string, filter: LogsFilter, send: Send): Promise<Subscription> {
  const feed = feedOf({ db, config });
  await feed.position();
  const topicSets = TOPIC_KEYS.map((key) => filter.topics.get(key) && new Set(filter.topics.get(key)!.map((v) => v.toString('hex'))));
  const subscriber: FeedSubscriber = {
    filterKey: `rpc:${JSON.stringify([filter.contracts ? [...filter.contracts].sort() : null, topicSets.map((s) => (s ? [...s].sort() : null))])}`,
    matches(log) {
      if (filter.contracts !== undefined && !filter.contracts.has(log.contractId)) return false;
      return topicSets.every((wanted, n) => wanted === undefined || (log.topics[n] !== null && wanted.has(log.topics[n]!)));
    },
    deliver(batch) {
      for (const log of batch.logs) if (!send(notification(id, logText(log)))) return feed.detach(subscriber);
    },
  };
  feed.attach(subscriber);
  return { id, stop: () => feed.detach(subscriber) };
}

/** A `newHeads` subscription: every new block's header, oldest first. */
export async function subscribeHeads(db: Db, config: Config, id: string, send: Send): Promise<Subscription> {
  const feed = feedOf({ db, config });
  await feed.position();
  let last = feed.throughBlock;
  const subscriber: FeedSubscriber = {
    filterKey: 'rpc:newHeads',
    matches: () => false,
    deliver() {
      const from = last ?? feed.throughBlock;
      if (from === undefined) return;
      newHeads(db, feed.throughBlock, from).then(
        (fresh) => {
          for (const head of fresh) {
            if (last !== undefined && head.number <= last) continue;
            if (!send(notification(id, head.text))) return feed.detach(subscriber);
            last = head.number;
          }
        },
        () => {},
      );
    },
  };
  feed.attach(subscriber);
  return { id, stop: () => feed.detach(subscriber) };
}
