import { readFileSync } from 'node:fs';

/** The three endpoints the mix exercises, classified by path. */
export type Endpoint = 'lookup' | 'results' | 'logs';
export const ENDPOINTS: readonly Endpoint[] = ['lookup', 'results', 'logs'];

export const ENDPOINT_LABELS: Record<Endpoint, string> = {
  lookup: 'GET /api/v1/contracts/{id}',
  results: 'GET /api/v1/contracts/{id}/results',
  logs: 'GET /api/v1/contracts/{id}/results/logs',
};

/**
 * Endpoint of a request path: `.../results/logs`, `.../results`, anything else is a contract lookup
 * (that includes the malformed-id 400 and unknown-id 404 cases of the mix).
 */
export function classify(path: string): Endpoint {
  const pathname = (path.split('?', 1)[0] ?? '').replace(/\/+$/, '').toLowerCase();
  if (pathname.endsWith('/results/logs')) return 'logs';
  if (pathname.endsWith('/results')) return 'results';
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
