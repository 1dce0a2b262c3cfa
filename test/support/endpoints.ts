/**
 * The endpoints of the demo's example URLs: which route each URL is for, whether the service serves
 * that route yet, and what "answers with data" means for its body.
 */
import assert from 'node:assert/strict';
import { routes } from '../../src/app.ts';
import type { Endpoint } from '../../src/demo/examples.ts';

/** The route pattern of each endpoint (names of path parameters do not matter). */
export const ROUTE: Record<Endpoint, string> = {
  contract: '/api/v1/contracts/:contractIdOrAddress',
  results: '/api/v1/contracts/:contractIdOrAddress/results',
  logs: '/api/v1/contracts/:contractIdOrAddress/results/logs',
  contracts: '/api/v1/contracts',
  allResults: '/api/v1/contracts/results',
  allLogs: '/api/v1/contracts/results/logs',
  resultByTimestamp: '/api/v1/contracts/:contractIdOrAddress/results/:timestamp',
  resultByTransaction: '/api/v1/contracts/results/:transactionIdOrHash',
  actions: '/api/v1/contracts/results/:transactionIdOrHash/actions',
  state: '/api/v1/contracts/:contractIdOrAddress/state',
};

const shape = (path: string) => path.toLowerCase().replace(/:[^/]+/g, ':');
const servedShapes = new Set(routes.map((r) => shape(r.path)));

/** True when the service has the endpoint's route (src/app.ts). */
export function served(endpoint: Endpoint): boolean {
  return servedShapes.has(shape(ROUTE[endpoint]));
}

/** The endpoint of a URL or path (literal segments win over parameters, as in the router). */
export function endpointOf(url: string): Endpoint {
  const path = new URL(url, 'http://localhost').pathname.replace(/\/$/, '');
  const rest = path.replace(/^\/api\/v1\/contracts/, '');
  if (rest === '') return 'contracts';
  if (rest === '/results') return 'allResults';
  if (rest === '/results/logs') return 'allLogs';
  if (/^\/results\/[^/]+\/actions$/.test(rest)) return 'actions';
  if (/^\/results\/[^/]+$/.test(rest)) return 'resultByTransaction';
  if (/^\/[^/]+\/results\/logs$/.test(rest)) return 'logs';
  if (/^\/[^/]+\/results\/[^/]+$/.test(rest)) return 'resultByTimestamp';
  if (/^\/[^/]+\/results$/.test(rest)) return 'results';
  if (/^\/[^/]+\/state$/.test(rest)) return 'state';
  if (/^\/[^/]+$/.test(rest)) return 'contract';
  throw new Error(`not a contract endpoint: ${url}`);
}

/** Asserts that a 200 body of the endpoint holds data (a non-empty list, or a contract / a result with its logs). */
export function assertHasData(endpoint: Endpoint, body: Record<string, any>, url: string): void {
  const nonEmpty = (list: unknown) => assert.ok(Array.isArray(list) && list.length > 0, `${url}: no data`);
  switch (endpoint) {
    case 'contract':
      assert.match(body.contract_id, /^0\.0\.\d+$/, url);
      break;
    case 'contracts':
      nonEmpty(body.contracts);
      break;
    case 'results':
    case 'allResults':
      nonEmpty(body.results);
      break;
    case 'logs':
    case 'allLogs':
      nonEmpty(body.logs);
      break;
    case 'resultByTimestamp':
    case 'resultByTransaction':
      assert.match(body.contract_id, /^0\.0\.\d+$/, url);
      nonEmpty(body.logs);
      nonEmpty(body.state_changes);
      break;
    case 'actions':
      nonEmpty(body.actions);
      break;
    case 'state':
      nonEmpty(body.state);
      break;
  }
}
