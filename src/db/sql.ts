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

  constructor(strings: readonly string[], values: readonly unknown[]) {
    this.strings = strings;
    this.values = values;
  }

  /** The statement text with $n placeholders and its parameter values, in order. */
  compile(): { text: string; values: unknown[] } {
    const values: unknown[] = [];
    const text = this.append('', values);
    return { text, values };
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

export type Direction = 'asc' | 'desc';

const DIRECTIONS: Record<Direction, Sql> = { asc: new Sql(['asc'], []), desc: new Sql(['desc'], []) };

/** The sort direction keyword (one of two fixed words, never client text). */
export const direction = (order: Direction): Sql => DIRECTIONS[order];

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
