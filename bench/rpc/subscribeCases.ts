/**
 * Cases of the WebSocket only (difftest --a/--b ws://): eth_subscribe and eth_unsubscribe. `logs`
 * with the address and topics parts of eth_getLogs' filters (an address one, several, absent or
 * not a contract; topics with null and OR arrays), with block keys the subscription ignores or not
 * an object at all; `newHeads`, twice on one connection (the same id again); events nobody serves;
 * each subscription then unsubscribed twice (true, then false) and an id nobody gave out; and
 * eth_unsubscribe with no id, a falsy one or one in another form, then with the subscription's id.
 * Kind `ws-batch`: batches under the ws-server's own rules (the methods a batch may not hold,
 * refused before its method list; subscriptions; its size limit, 20).
 */
import type { Case, Step } from './cases.ts';
import { type Picker, addressPart, blockPart, topicsPart } from './filters.ts';
import { call, type Reply } from './jsonRpc.ts';

export const SUBSCRIBE_KIND = 'subscribe';
export const WS_BATCH_KIND = 'ws-batch';
/** The kinds of this file: cases only a WebSocket has. */
export const WS_KINDS = [SUBSCRIBE_KIND, WS_BATCH_KIND];

/** The relay's BATCH_REQUESTS_DISALLOWED_METHODS, as the endpoint keeps them. */
/** The methods the relay refuses in a batch (-32007: its BATCH_REQUESTS_DISALLOWED_METHODS); this endpoint answers them. */
export const RELAY_NOT_IN_BATCH = [
  'debug_traceTransaction',
  'debug_traceBlockByNumber',
  'eth_newFilter',
  'eth_uninstallFilter',
  'eth_getFilterChanges',
  'eth_getFilterLogs',
  'eth_newBlockFilter',
  'eth_newPendingTransactionFilter',
];
const NOT_IN_BATCH = RELAY_NOT_IN_BATCH;

function wsBatch(p: Picker, id: number): Case {
  const n = p.weighted([
    [8, p.int(1, 6)],
    [1, 20],
    [1, 21],
  ]);
  const parts = Array.from({ length: n }, (_, i) => {
    const k = id * 100 + i;
    if (n >= 20) return { value: call(k, 'eth_chainId', []), shape: 'chain' };
    return p.weighted<() => { value: unknown; shape: string }>([
      [3, () => ({ value: { ...call(k, p.pick(NOT_IN_BATCH), [{}]), id: p.pick<unknown>([k, `r${k}`, null]) }, shape: 'not-in-batch' })],
      [1, () => ({ value: { id: k, method: p.pick(NOT_IN_BATCH) }, shape: 'not-in-batch-bare' })],
      [1, () => ({ value: call(k, 'eth_subscribe', p.pick<unknown[]>([['newHeads'], ['logs', {}], ['foo']])), shape: 'subscribe' })],
      [1, () => ({ value: call(k, 'eth_unsubscribe', [`0x${p.hex(32)}`]), shape: 'unsubscribe' })],
      [1, () => ({ value: call(k, p.pick(['net_version', 'eth_getTransactionByBlockHashAndIndex', 'eth_syncing']), []), shape: 'off-list' })],
      [2, () => ({ value: call(k, p.pick(['eth_chainId', 'eth_blockNumber']), []), shape: 'chain' })],
    ])();
  });
  const body = parts.map((x) => x.value);
  const shape = n >= 20 ? `batch${n} of eth_chainId` : `batch${n} [${parts.map((x) => x.shape).join(',')}]`;
  return { kind: WS_BATCH_KIND, shape, steps: [{ body: () => body, filterId: true }] };
}

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

/** A case of a kind only a WebSocket has. */
export function wsOnlyCase(p: Picker, id: number): Case {
  return p.chance(0.15) ? wsBatch(p, id) : subscribeCase(p, id);
}

function subscribeCase(p: Picker, id: number): Case {
  const unsubscribe = (k: number): Step => ({ body: (e) => call(id * 100 + k, 'eth_unsubscribe', [idOf(e[0])]) });
  const flow = p.weighted([
    [5, 'logs'],
    [2, 'newHeads'],
    [1, 'other-event'],
    [1, 'unknown-id'],
    [1, 'odd-unsubscribe'],
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
  if (flow === 'odd-unsubscribe') {
    // the ws-server ends every subscription of the connection when params[0] is falsy
    const [shape, params] = p.pick<[string, (sub: unknown) => unknown]>([
      ['[]', () => []],
      ['no-params', () => undefined],
      ['[null]', () => [null]],
      ['[""]', () => ['']],
      ['[0]', () => [0]],
      ['{}', () => ({})],
      ['[[id]]', (sub) => [[sub]]],
      ['[ID]', (sub) => [String(sub).toUpperCase().replace(/^0X/, '0x')]],
    ]);
    const subscribe: Step = { body: () => call(id * 100, 'eth_subscribe', ['newHeads']), filterId: true };
    const odd: Step = { body: (e) => call(id * 100 + 1, 'eth_unsubscribe', params(idOf(e[0]))) };
    return { kind: SUBSCRIBE_KIND, shape: `unsubscribe ${shape}`, steps: [subscribe, odd, unsubscribe(2)] };
  }
  const param = p.pick<unknown>([`0x${p.hex(32)}`, '0x1', 'abc', 7, null]);
  return { kind: SUBSCRIBE_KIND, shape: `unsubscribe unknown ${JSON.stringify(param)}`, steps: [{ body: () => call(id * 100, 'eth_unsubscribe', [param]) }] };
}
