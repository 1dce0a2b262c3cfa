/**
 * Sends fuzzed requests (bench/lib/fuzzInput.ts) to a server over `connections` raw keep-alive
 * clients and collects what went wrong: a connection-level error, or a 5xx answer. Shared by the fuzz
 * property tests with and without an upstream.
 */
import { type FuzzRequest, isolated, serialize } from '../../bench/lib/fuzzInput.ts';
import { RawClient } from '../../bench/lib/rawClient.ts';

export interface FuzzOutcome {
  /** One line per request that got no answer or a 5xx. */
  failures: string[];
  /** How many answers of each status. */
  statuses: Map<number, number>;
}

export async function sendFuzzed(port: number, requests: readonly FuzzRequest[], connections = 4): Promise<FuzzOutcome> {
  const failures: string[] = [];
  const statuses = new Map<number, number>();
  let next = 0;
  await Promise.all(
    Array.from({ length: connections }, async () => {
      const client = new RawClient(port);
      while (next < requests.length) {
        const request = requests[next++]!;
        const outcome = await client.send(serialize(request), request.method === 'HEAD', 20_000);
        if (isolated(request)) client.close();
        if ('error' in outcome) failures.push(`${outcome.error}: ${request.method} ${request.target}`);
        else {
          statuses.set(outcome.answer.status, (statuses.get(outcome.answer.status) ?? 0) + 1);
          if (outcome.answer.status >= 500) failures.push(`${outcome.answer.status}: ${request.method} ${request.target} ${outcome.answer.body.toString().slice(0, 200)}`);
        }
      }
      client.close();
    }),
  );
  return { failures, statuses };
}
