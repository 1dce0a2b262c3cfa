import { readFileSync } from 'node:fs';

/** The ten routes, named as the differential tester names them (lookup is its `contract`). */
export type Endpoint =
  | 'lookup'
  | 'results'
  | 'logs'
  | 'contracts'
  | 'all-results'
  | 'all-logs'
  | 'result-by-ts'
  | 'result-by-tx'
  | 'actions'
  | 'state';

export const ENDPOINT_LABELS: Record<Endpoint, string> = {
  lookup: 'GET /api/v1/contracts/{id}',
  results: 'GET /api/v1/contracts/{id}/results',
  logs: 'GET /api/v1/contracts/{id}/results/logs',
  contracts: 'GET /api/v1/contracts',
  'all-results': 'GET /api/v1/contracts/results',
  'all-logs': 'GET /api/v1/contracts/results/logs',
  'result-by-ts': 'GET /api/v1/contracts/{id}/results/{timestamp}',
  'result-by-tx': 'GET /api/v1/contracts/results/{transactionIdOrHash}',
  actions: 'GET /api/v1/contracts/results/{transactionIdOrHash}/actions',
  state: 'GET /api/v1/contracts/{id}/state',
};

export const ENDPOINTS = Object.keys(ENDPOINT_LABELS) as Endpoint[];

/**
 * The route of a request path, by the reference's route table: the literal `results` segment
 * right after `/contracts` starts the network-wide routes; anything unmatched (malformed-id 400s,
 * unknown-id 404s) counts as a contract lookup.
 */
export function classify(path: string): Endpoint {
  const pathname = (path.split('?', 1)[0] ?? '').replace(/\/+$/, '');
  const segments = pathname.split('/').slice(4); // after /api/v1/contracts
  const lower = segments.map((s) => s.toLowerCase());
  if (segments.length === 0) return 'contracts';
  if (segments[0] === 'results') {
    if (segments.length === 1) return 'all-results';
    if (segments.length === 2) return lower[1] === 'logs' ? 'all-logs' : 'result-by-tx';
    if (segments.length === 3 && lower[2] === 'actions') return 'actions';
    return 'lookup';
  }
  if (segments.length === 2 && lower[1] === 'results') return 'results';
  if (segments.length === 2 && lower[1] === 'state') return 'state';
  if (segments.length === 3 && lower[1] === 'results') return lower[2] === 'logs' ? 'logs' : 'result-by-ts';
  return 'lookup';
}

/** One path per line; `#` starts a comment line; blank lines are ignored. */
export function parseUrlList(text: string): string[] {
  const paths: string[] = [];
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) continue;
    if (!line.startsWith('/')) throw new Error(`not a request path (must start with "/"): ${line}`);
    paths.push(line);
  }
  return paths;
}

export function readUrlFile(file: string): string[] {
  const paths = parseUrlList(readFileSync(file, 'utf8'));
  if (paths.length === 0) throw new Error(`${file} holds no request paths`);
  return paths;
}
