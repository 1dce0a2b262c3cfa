/**
 * The generated cases: each is one or more JSON-RPC requests sent in turn to one endpoint, later
 * ones built from earlier answers of the same endpoint (a filter's id). Kinds: eth_getLogs valid and
 * invalid, the chain methods, unknown and unserved methods, envelope faults, batches, filters.
 */
import { type Picker, type Shaped, validFilter } from './filters.ts';
import { invalidGetLogsParams } from './invalid.ts';
import { call, type Reply } from './jsonRpc.ts';

export interface Step {
  /** the request body from this endpoint's earlier replies in the case; a string is sent as is */
  body: (earlier: readonly Reply[]) => unknown;
  /** the result is a filter id, random on each side: compared by its shape */
  filterId?: boolean;
}

export interface Case {
  kind: string;
  shape: string;
  steps: Step[];
}

export const KINDS = ['getLogs', 'getLogs-invalid', 'chain', 'unknown', 'unserved', 'envelope', 'batch', 'filter'] as const;

const CHAIN_METHODS = ['eth_chainId', 'net_version', 'eth_blockNumber'];
const UNKNOWN_METHODS = ['eth_foo', 'foo', '', 'ETH_CHAINID', 'eth_getlogs', 'debug_nothing', 'rpc_modules'];
/** methods a relay serves and this endpoint does not (it names where they are served) */
const UNSERVED_METHODS: readonly (readonly [string, unknown[]])[] = [
  ['eth_call', [{ to: '0x0000000000000000000000000000000000000167', data: '0x' }, 'latest']],
  ['eth_sendRawTransaction', ['0x00']],
  ['eth_getBalance', ['0x0000000000000000000000000000000000000002', 'latest']],
  ['eth_getTransactionReceipt', [`0x${'1'.repeat(64)}`]],
  ['web3_clientVersion', []],
  ['eth_getBlockByNumber', ['latest', false]],
];

/** The id of the filter an earlier reply created (or a placeholder that no endpoint knows). */
const idOf = (reply: Reply | undefined): unknown => (reply?.json as { result?: unknown } | undefined)?.result ?? '0x0';

const one = (id: number, method: string, params?: unknown): Step => ({ body: () => call(id, method, params) });

function chainCall(p: Picker, id: number): Shaped<Record<string, unknown>> {
  const method = p.pick(CHAIN_METHODS);
  const params = p.weighted<unknown>([
    [6, []],
    [2, undefined],
    [1, [1]],
    [1, {}],
  ]);
  return { value: call(id, method, params), shape: `${method}${params === undefined ? ' no-params' : ` ${JSON.stringify(params)}`}` };
}

function getLogsCall(p: Picker, id: number): Shaped<Record<string, unknown>> {
  const f = validFilter(p);
  return { value: call(id, 'eth_getLogs', [f.value]), shape: f.shape };
}

function batch(p: Picker, id: number): Case {
  const n = p.weighted([
    [1, 0],
    [2, 1],
    [5, p.int(2, 6)],
  ]);
  const parts: Shaped<unknown>[] = Array.from({ length: n }, (_, i) =>
    p.weighted<() => Shaped<unknown>>([
      [3, () => chainCall(p, id * 100 + i)],
      [3, () => getLogsCall(p, id * 100 + i)],
      [1, () => ({ value: call(id * 100 + i, 'eth_getLogs', invalidGetLogsParams(p).value), shape: 'invalid' })],
      [1, () => ({ value: call(id * 100 + i, p.pick(UNKNOWN_METHODS), []), shape: 'unknown' })],
      [1, () => ({ value: p.pick([1, 'x', null, {}]), shape: 'not-a-request' })],
    ])(),
  );
  const body = parts.map((x) => x.value);
  return { kind: 'batch', shape: `batch${n} [${parts.map((x) => x.shape.split(' ')[0]).join(',')}]`, steps: [{ body: () => body }] };
}

function envelope(p: Picker, id: number): Case {
  const [shape, body] = p.weighted<[string, unknown]>([
    [1, ['not-json', '{"jsonrpc":"2.0","id":1,"method":"eth_chainId"']],
    [1, ['no-jsonrpc', { id, method: 'eth_chainId', params: [] }]],
    [1, ['jsonrpc-1.0', { jsonrpc: '1.0', id, method: 'eth_chainId', params: [] }]],
    [1, ['id-string', call(`req-${id}`, 'eth_blockNumber', [])]],
    [1, ['id-null', call(null as unknown as number, 'eth_chainId', [])]],
    [1, ['notification', { jsonrpc: '2.0', method: 'eth_chainId', params: [] }]],
    [1, ['method-number', { jsonrpc: '2.0', id, method: 42, params: [] }]],
    [1, ['no-method', { jsonrpc: '2.0', id, params: [] }]],
    [1, ['body-number', '42']],
    [1, ['body-empty-object', {}]],
  ]);
  return { kind: 'envelope', shape, steps: [{ body: () => body }] };
}

function filterFlow(p: Picker, id: number): Case {
  const flow = p.weighted([
    [4, 'log'],
    [2, 'block'],
    [2, 'unknown-id'],
    [1, 'invalid'],
  ] as const);
  const use = (method: string, at: number, k: number): Step => ({ body: (e) => call(id * 100 + k, method, [idOf(e[at])]) });
  if (flow === 'log') {
    const f = validFilter(p);
    const create: Step = { body: () => call(id * 100, 'eth_newFilter', [f.value]), filterId: true };
    const steps = [create, use('eth_getFilterLogs', 0, 1), use('eth_getFilterChanges', 0, 2), use('eth_getFilterChanges', 0, 3)];
    steps.push(use('eth_uninstallFilter', 0, 4), use('eth_uninstallFilter', 0, 5), use('eth_getFilterLogs', 0, 6));
    return { kind: 'filter', shape: `log ${f.shape}`, steps };
  }
  if (flow === 'block') {
    const create: Step = { body: () => call(id * 100, 'eth_newBlockFilter', []), filterId: true };
    const steps = [create, use('eth_getFilterChanges', 0, 1), use('eth_getFilterLogs', 0, 2), use('eth_uninstallFilter', 0, 3)];
    return { kind: 'filter', shape: 'block', steps };
  }
  if (flow === 'unknown-id') {
    const method = p.pick(['eth_getFilterLogs', 'eth_getFilterChanges', 'eth_uninstallFilter']);
    const param = p.pick<unknown>([`0x${p.hex(32)}`, '0x1', 'abc', 7, null]);
    return { kind: 'filter', shape: `unknown-id ${method} ${JSON.stringify(param)}`, steps: [one(id, method, [param])] };
  }
  const bad = invalidGetLogsParams(p);
  return { kind: 'filter', shape: `newFilter-invalid ${bad.shape}`, steps: [{ body: () => call(id, 'eth_newFilter', bad.value), filterId: true }] };
}

/** The case number `id` of a run. */
export function generateCase(p: Picker, id: number): Case {
  const kind = p.weighted<(typeof KINDS)[number]>([
    [40, 'getLogs'],
    [16, 'getLogs-invalid'],
    [6, 'chain'],
    [3, 'unknown'],
    [3, 'unserved'],
    [5, 'envelope'],
    [8, 'batch'],
    [10, 'filter'],
  ]);
  switch (kind) {
    case 'getLogs': {
      const c = getLogsCall(p, id);
      return { kind, shape: c.shape, steps: [{ body: () => c.value }] };
    }
    case 'getLogs-invalid': {
      const bad = invalidGetLogsParams(p);
      return { kind, shape: bad.shape, steps: [one(id, 'eth_getLogs', bad.value)] };
    }
    case 'chain': {
      const c = chainCall(p, id);
      return { kind, shape: c.shape, steps: [{ body: () => c.value }] };
    }
    case 'unknown': {
      const method = p.pick(UNKNOWN_METHODS);
      return { kind, shape: JSON.stringify(method), steps: [one(id, method, [])] };
    }
    case 'unserved': {
      const [method, params] = p.pick(UNSERVED_METHODS);
      return { kind, shape: method, steps: [one(id, method, params)] };
    }
    case 'envelope':
      return envelope(p, id);
    case 'batch':
      return batch(p, id);
    case 'filter':
      return filterFlow(p, id);
  }
}
