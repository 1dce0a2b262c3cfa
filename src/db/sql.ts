/**
 * SQL with values, written as tagged templates in the spirit of postgres.js:
 *
 *   sql`select id from entity where evm_address = ${address} and deleted <> true`
 *
 * Every interpolated value becomes a numbered parameter ($1, $2, ...), so no value can reach the
 * statement text; an interpolated Sql fragment is spliced in (its own values renumbered), so a
 * statement can be composed from conditions and still read top to bottom in one place. The only
 * ways to put text into a statement are the template literals themselves and the closed sets of
 * words below (sort direction, comparison operator).
 */
export class Sql {
  /** Literal text pieces; one more than the values. */
  readonly strings: readonly string[];
  /** Parameter values, or nested fragments, between the pieces. */
  readonly values: readonly unknown[];
  /** How the statement is planned (see PlanChoice); fragments spliced into it do not count. */
  readonly plan: PlanChoice;

  constructor(strings: readonly string[], values: readonly unknown[], plan: PlanChoice = 'cached') {
    this.strings = strings;
    this.values = values;
    this.plan = plan;
  }

  /** The statement text with $n placeholders, its parameter values in order, and how it is planned. */
  compile(): { text: string; values: unknown[]; plan: PlanChoice } {
    const values: unknown[] = [];
    const text = this.append('', values);
    return { text, values, plan: this.plan };
  }

  private append(prefix: string, values: unknown[]): string {
    let text = prefix + this.strings[0]!;
    for (let i = 0; i < this.values.length; i++) {
      const value = this.values[i];
      text = value instanceof Sql ? value.append(text, values) : `${text}$${values.push(value)}`;
      text += this.strings[i + 1]!;
    }
    return text;
  }
}

/**
 * How PostgreSQL plans a statement. `cached`: as the sessions' plan_cache_mode says; on the
 * importer's v1 schema a generic plan, made once per connection and reused for any values (the
 * statement is written so that its generic plan is a bounded index scan, and no planning is paid per
 * request). `custom`: planned for its values at every execution (and never as a sequential scan),
 * for searches bounded by an index range whose best plan depends on how common a value is (a topic
 * that occurs in every tenth log or in none), where one plan for all values is 100x too slow for
 * some of them. docs/performance.md ("Plans") lists which
 * statement uses which, measured by the plan sweep (bench/scenarios/planSweep.ts).
 */
export type PlanChoice = 'cached' | 'custom';

/** The statement, planned for its values at every execution (PlanChoice `custom`). */
export const planPerExecution = (statement: Sql): Sql => new Sql(statement.strings, statement.values, 'custom');

/** A statement or fragment: template text, values as parameters, fragments spliced in. */
export function sql(strings: TemplateStringsArray, ...values: unknown[]): Sql {
  return new Sql(strings, values);
}

const EMPTY = new Sql([''], []);

/** The fragments separated by `separator` (literal text); an empty list gives `empty`. */
export function join(parts: readonly Sql[], separator: string, empty: Sql = EMPTY): Sql {
  if (parts.length === 0) return empty;
  const strings = ['', ...parts.slice(1).map(() => separator), ''];
  return new Sql(strings, parts);
}

/** `a and b and ...`, or `true` when there is no condition. */
export const and = (conditions: readonly Sql[]): Sql => join(conditions, ' and ', sql`true`);

/** `(a) or (b) or ...`, or `false` when there is no alternative. */
export const or = (alternatives: readonly Sql[]): Sql =>
  join(
    alternatives.map((a) => sql`(${a})`),
    ' or ',
    sql`false`,
  );

/** A listing's order: ascending or descending on its key. */
export type Order = 'asc' | 'desc';

const DIRECTIONS: Record<Order, Sql> = { asc: new Sql(['asc'], []), desc: new Sql(['desc'], []) };

/** The sort direction keyword (one of two fixed words, never client text). */
export const direction = (order: Order): Sql => DIRECTIONS[order];

export type Comparison = '=' | '<>' | '<' | '<=' | '>' | '>=';

const COMPARISONS: Record<Comparison, Sql> = {
  '=': new Sql(['='], []),
  '<>': new Sql(['<>'], []),
  '<': new Sql(['<'], []),
  '<=': new Sql(['<='], []),
  '>': new Sql(['>'], []),
  '>=': new Sql(['>='], []),
};

/** A comparison operator (one of six fixed words). */
export const comparison = (op: Comparison): Sql => COMPARISONS[op];

/** An empty fragment, for optional parts. */
export const nothing = EMPTY;
