/**
 * eth_subscribe's subscriptions, fed by the process's live logs feed (src/contracts/logs/live/feed.ts):
 * one statement per tick reads the new record files and their logs for every subscription and event
 * stream of the database; each `logs` subscription is a feed subscriber with its filter (contracts,
 * topics with OR per position), each matching log one `eth_subscription` notification as the relay
 * sends it. The `newHeads` subscriptions of a feed share one read of the new blocks' headers per tick
 * that has new blocks (HeadsHub).
 */
import type { Config } from '../config/config.ts';
import { blocksAfter } from '../db/blocks.ts';
import type { Db } from '../db/db.ts';
import { FILES_PER_TICK, type FeedSubscriber, type LiveLog, type LogFeed } from '../contracts/logs/live/feed.ts';
import { feedOf } from '../contracts/logs/live/stream.ts';
import { TOPIC_KEYS, type TopicKey } from '../contracts/logs/params.ts';
import { headJson } from './heads.ts';
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

/** One newHeads subscription of a hub: the newest block it was sent (or was current when it began). */
interface HeadsListener {
  id: string;
  since: bigint | undefined;
  send: Send;
}

/**
 * The newHeads subscriptions of one feed: one feed subscriber for all of them, which reads the new
 * blocks' headers once per tick that has new blocks (one statement, whatever the number of
 * subscriptions or when each began) and sends each subscription the headers after its own `since`.
 * A tick that comes while a read is under way is read after it, once (ticks never queue reads).
 */
class HeadsHub {
  readonly listeners = new Set<HeadsListener>();
  /** The newest block whose header was read (or current when the hub began). */
  private last: bigint | undefined;
  private reading = false;
  private again = false;
  readonly subscriber: FeedSubscriber = {
    filterKey: 'rpc:newHeads',
    matches: () => false,
    deliver: () => this.read(),
  };

  constructor(
    private readonly db: Db,
    private readonly feed: LogFeed,
  ) {
    this.last = feed.throughBlock;
  }

  private read(): void {
    if (this.reading) {
      this.again = true;
      return;
    }
    // the feed's position before this tick: the headers after it are the tick's new blocks
    const after = this.last ?? this.feed.throughBlock;
    if (after === undefined) return;
    this.reading = true;
    blocksAfter(this.db, after, FILES_PER_TICK)
      .then(
        (rows) => {
          for (const row of rows) {
            const head = { number: BigInt(row.number), text: headJson(row) };
            for (const listener of [...this.listeners]) {
              if (listener.since !== undefined && head.number <= listener.since) continue;
              listener.since = head.number;
              if (!listener.send(notification(listener.id, head.text))) this.remove(listener);
            }
            this.last = head.number;
          }
        },
        () => {},
      )
      .finally(() => {
        this.reading = false;
        if (this.again) {
          this.again = false;
          this.read();
        }
      });
  }

  add(listener: HeadsListener): void {
    this.listeners.add(listener);
    if (this.listeners.size === 1) this.feed.attach(this.subscriber);
  }

  remove(listener: HeadsListener): void {
    if (!this.listeners.delete(listener)) return;
    if (this.listeners.size === 0) {
      this.feed.detach(this.subscriber);
      hubs.delete(this.feed);
    }
  }
}

const hubs = new WeakMap<LogFeed, HeadsHub>();

/** A `newHeads` subscription: every new block's header, oldest first. */
export async function subscribeHeads(db: Db, config: Config, id: string, send: Send): Promise<Subscription> {
  const feed = feedOf({ db, config });
  await feed.position();
  let hub = hubs.get(feed);
  if (hub === undefined) hubs.set(feed, (hub = new HeadsHub(db, feed)));
  const listener: HeadsListener = { id, since: feed.throughBlock, send };
  hub.add(listener);
  const joined = hub;
  return { id, stop: () => joined.remove(listener) };
}
