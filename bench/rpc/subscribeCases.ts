/**
 * Cases of the WebSocket only (difftest --a/--b ws://): eth_subscribe and eth_unsubscribe. `logs`
 * with the address and topics parts of eth_getLogs' filters (an address one, several, absent or
 * not a contract; topics with null and OR arrays), with block keys the subscription ignores or not
 * an object at all; `newHeads`, twice on one connection (the same id again); events nobody serves;
 * each subscription then unsubscribed twice (true, then false) and an id nobody gave out.
 */
import type { Case, Step } from './cases.ts';
import { type Picker, addressPart, blockPart, topicsPart } from './filters.ts';
import { call, type Reply } from './jsonRpc.ts';

export const SUBSCRIBE_KIND = 'subscribe';

/** The subscription id an earlier reply gave (or one nobody gave out). */
const idOf = (reply: Reply | undefined): unknown => (reply?.json as { result?: unknown } | undefined)?.result ?? '0x0';

function logsParams(p: Picker): { value: unknown[]; shape: string } {
  const anchor = p.log();
  return p.weighted<() => { value: unknown[]; shape: string }>([
    [
      8,
      () => {
        const address = addressPart(p, anchor);
        const topics = topicsPart(p, anchor);
        const filter: Record<string, unknown> = {};
        if (address.value !== undefined) filter.address = address.value;
        if (topics.value !== undefined) filter.topics = topics.value;
        return { value: ['logs', filter], shape: `logs ${address.shape} ${topics.shape}` };
      },
    ],
    [1, () => ({ value: ['logs', { ...blockPart(p, anchor).value, address: anchor.address }], shape: 'logs with blocks' })],
    [1, () => ({ value: ['logs', p.pick<unknown>([null, 'x', 7, [], { address: '0x12' }, { topics: ['0x12'] }, { topics: 'x' }])], shape: 'logs invalid' })],
    [1, () => ({ value: ['logs'], shape: 'logs no-filter' })],
  ])();
}

export function subscribeCase(p: Picker, id: number): Case {
  const unsubscribe = (k: number): Step => ({ body: (e) => call(id * 100 + k, 'eth_unsubscribe', [idOf(e[0])]) });
  const flow = p.weighted([
    [5, 'logs'],
    [2, 'newHeads'],
    [1, 'other-event'],
    [1, 'unknown-id'],
  ] as const);
  if (flow === 'logs') {
    const params = logsParams(p);
    const subscribe: Step = { body: () => call(id * 100, 'eth_subscribe', params.value), filterId: true };
    return { kind: SUBSCRIBE_KIND, shape: params.shape, steps: [subscribe, unsubscribe(1), unsubscribe(2)] };
  }
  if (flow === 'newHeads') {
    const params = p.pick<unknown[]>([['newHeads'], ['newHeads', {}], ['newHeads', { includeTransactions: true }]]);
    const subscribe: Step = { body: () => call(id * 100, 'eth_subscribe', params), filterId: true };
    const again: Step = { body: () => call(id * 100 + 1, 'eth_subscribe', params), filterId: true };
    return { kind: SUBSCRIBE_KIND, shape: `newHeads ${JSON.stringify(params.slice(1))}`, steps: [subscribe, again, unsubscribe(2), unsubscribe(3)] };
  }
  if (flow === 'other-event') {
    const params = p.pick<unknown>([['newPendingTransactions'], ['syncing'], ['foo'], [], 'logs', [7]]);
    return { kind: SUBSCRIBE_KIND, shape: `event ${JSON.stringify(params)}`, steps: [{ body: () => call(id * 100, 'eth_subscribe', params) }] };
  }
  const param = p.pick<unknown>([`0x${p.hex(32)}`, '0x1', 'abc', 7, null]);
  return { kind: SUBSCRIBE_KIND, shape: `unsubscribe unknown ${JSON.stringify(param)}`, steps: [{ body: () => call(id * 100, 'eth_unsubscribe', [param]) }] };
}
