/**
 * Citus's router rules, approximated on the plain-PostgreSQL v2 stub: walks the custom plan
 * (EXPLAIN (FORMAT JSON) with the statement's values bound) of one statement and names what Citus
 * could not route to one shard or push down to co-located shards.
 *
 * - A scan of a distributed table (citus_stub.dist; partitions count as their parent) must carry
 *   `<distribution column> = <constant>` (or `= ANY (<constant array>)`) among its own conditions, or
 *   be joined on its distribution column to a distributed table of the same colocation group.
 *   Otherwise it is a fan-out over every shard: allowed only where the caller expects it.
 * - Distributed tables of different colocation groups in one statement: a non-co-located join.
 * - record_file (a coordinator-local table) or file_data together with a distributed table: they are
 *   read in statements of their own.
 */

export interface Distribution {
  /** table -> its distribution column and colocation group */
  tables: Map<string, { column: string; group: string }>;
  /** partition -> its parent table */
  parents: Map<string, string>;
}

export interface PlanProblem {
  kind: 'fan-out' | 'non-co-located' | 'local-with-distributed' | 'file-data-with-distributed';
  table: string;
  detail: string;
}

interface Scan {
  table: string;
  alias: string;
  conditions: string[];
}

const CONDITION_KEYS = ['Index Cond', 'Recheck Cond', 'Filter', 'Hash Cond', 'Merge Cond', 'Join Filter', 'TID Cond'];

type PlanNode = Record<string, unknown> & { Plans?: PlanNode[] };

function collect(node: PlanNode, scans: Scan[], joins: string[], parents: Map<string, string>): void {
  const conditions = CONDITION_KEYS.map((k) => node[k]).filter((v): v is string => typeof v === 'string');
  const relation = node['Relation Name'];
  if (typeof relation === 'string') {
    scans.push({ table: parents.get(relation) ?? relation, alias: String(node.Alias ?? relation), conditions });
  }
  joins.push(...conditions);
  for (const child of node.Plans ?? []) collect(child, scans, joins, parents);
}

const TERM = String.raw`(?:ANY \('(?:[^']|'')*'::[\w ]+\[\]\)|'(?:[^']|'')*'(?:::\w+(?:\[\])?)?|-?\d+(?:::\w+)?|(?:\w+\.)?\w+)`;
const EQUALITY = new RegExp(`(${TERM}) = (${TERM})`, 'g');

/** The `a = b` comparisons of a condition text, each side as PostgreSQL printed it. */
export function equalities(condition: string): Array<[string, string]> {
  // columns of a domain type (the v1 schema's entity_id, nanos_timestamp) are printed cast: (entity_id)::bigint
  const plain = condition.replace(/\(((?:\w+\.)?\w+)\)::\w+/g, '$1');
  return [...plain.matchAll(EQUALITY)].map((m) => [m[1]!, m[2]!]);
}

const isConstant = (term: string) => /^(ANY \(')|^'|^-?\d/.test(term);

/** `alias.column` or a bare column (of `scan` when it is the scan's own condition). */
function columnOf(term: string, own: Scan | undefined): { alias: string; column: string } | undefined {
  if (isConstant(term)) return undefined;
  const dot = term.indexOf('.');
  if (dot >= 0) return { alias: term.slice(0, dot), column: term.slice(dot + 1) };
  return own ? { alias: own.alias, column: term } : undefined;
}

export function checkPlan(plan: PlanNode, dist: Distribution): PlanProblem[] {
  const scans: Scan[] = [];
  const conditions: string[] = [];
  collect(plan, scans, conditions, dist.parents);
  const problems: PlanProblem[] = [];
  const distributed = scans.filter((s) => dist.tables.has(s.table));
  const byAlias = new Map(scans.map((s) => [s.alias, s]));
  for (const scan of distributed) {
    const { column, group } = dist.tables.get(scan.table)!;
    const isDist = (c: { alias: string; column: string } | undefined) => c !== undefined && c.alias === scan.alias && c.column === column;
    // its own conditions: the distribution column equal to a constant
    const filtered = scan.conditions.some((text) =>
      equalities(text).some(([a, b]) => (isDist(columnOf(a, scan)) && isConstant(b)) || (isDist(columnOf(b, scan)) && isConstant(a))),
    );
    // or joined on it to the distribution column of a co-located table
    const coLocated = (other: { alias: string; column: string } | undefined) => {
      if (other === undefined || other.alias === scan.alias) return false;
      const target = byAlias.get(other.alias);
      const info = target && dist.tables.get(target.table);
      return info !== undefined && info.group === group && info.column === other.column;
    };
    const joined = [...conditions, ...scan.conditions].some((text) =>
      equalities(text).some(
        ([a, b]) =>
          (isDist(columnOf(a, scan)) && coLocated(columnOf(b, undefined))) || (isDist(columnOf(b, scan)) && coLocated(columnOf(a, undefined))),
      ),
    );
    if (!filtered && !joined) {
      problems.push({ kind: 'fan-out', table: scan.table, detail: `${scan.alias}: ${scan.conditions.join(' / ') || 'no condition'}` });
    }
  }
  const groups = new Set(distributed.map((s) => dist.tables.get(s.table)!.group));
  if (groups.size > 1) {
    problems.push({ kind: 'non-co-located', table: distributed.map((s) => s.table).join(', '), detail: [...groups].join(', ') });
  }
  const others = (table: string) => distributed.filter((s) => s.table !== table);
  if (scans.some((s) => s.table === 'record_file') && distributed.length > 0) {
    problems.push({ kind: 'local-with-distributed', table: 'record_file', detail: distributed.map((s) => s.table).join(', ') });
  }
  if (scans.some((s) => s.table === 'file_data') && others('file_data').length > 0) {
    problems.push({ kind: 'file-data-with-distributed', table: 'file_data', detail: others('file_data').map((s) => s.table).join(', ') });
  }
  return problems;
}
