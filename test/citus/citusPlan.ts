/**
 * What Citus does with one statement, read from its EXPLAIN (FORMAT JSON) on the coordinator: no
 * distributed table (local), one task on one shard group (router), one job of N tasks (a fan-out over
 * N shards), or distributed subplans run first whose results feed the final step (recursive), and
 * whether a fan-out reaches every shard of a table or only the shards its values name.
 */

export type Routing =
  | { kind: 'local' }
  | { kind: 'router' }
  | { kind: 'fan-out'; tasks: number }
  | { kind: 'recursive'; subplans: number; tasks: number[] };

type Node = Record<string, unknown>;

/** The task counts of the Citus scans, outermost first, and the number of distributed subplans. */
function citusScans(node: unknown, scans: number[], subplans: { n: number }): void {
  if (Array.isArray(node)) {
    for (const child of node) citusScans(child, scans, subplans);
    return;
  }
  if (node === null || typeof node !== 'object') return;
  const n = node as Node;
  if (String(n['Custom Plan Provider'] ?? '').startsWith('Citus')) {
    const query = (n['Distributed Query'] ?? {}) as Node;
    const job = (query.Job ?? {}) as Node;
    scans.push(Number(job['Task Count'] ?? 0));
    const plans = query.Subplans;
    if (Array.isArray(plans)) subplans.n += plans.length;
  }
  for (const value of Object.values(n)) citusScans(value, scans, subplans);
}

export function routingOf(explain: unknown): Routing {
  const scans: number[] = [];
  const subplans = { n: 0 };
  citusScans(explain, scans, subplans);
  if (scans.length === 0) return { kind: 'local' };
  if (subplans.n > 0) return { kind: 'recursive', subplans: subplans.n, tasks: scans };
  return scans[0]! <= 1 ? { kind: 'router' } : { kind: 'fan-out', tasks: scans[0]! };
}

export function describeRouting(routing: Routing): string {
  switch (routing.kind) {
    case 'local':
      return 'local (coordinator only)';
    case 'router':
      return 'routed to one shard';
    case 'fan-out':
      return `fanned out to ${routing.tasks} shards`;
    case 'recursive':
      return `${routing.subplans} distributed subplans (tasks ${routing.tasks.join(', ')})`;
  }
}

/** The distributed tables a statement reads (`from t` / `join t`), by name. */
export function tablesOf(text: string, distributed: ReadonlyMap<string, number>): string[] {
  const names = [...text.matchAll(/\b(?:from|join)\s+(?:public\.)?(\w+)/gi)].map((m) => m[1]!.toLowerCase());
  return [...new Set(names.filter((n) => distributed.has(n)))];
}

/** A fan-out over every shard of one of the statement's tables (not only the shards its values name). */
export function everyShard(routing: Routing, tables: readonly string[], shardCounts: ReadonlyMap<string, number>): boolean {
  const tasks = routing.kind === 'fan-out' ? [routing.tasks] : routing.kind === 'recursive' ? routing.tasks : [];
  return tasks.some((t) => t > 1 && tables.some((table) => shardCounts.get(table) === t));
}
