/**
 * JSON serialization that prints bigint values as exact decimal numbers (64-bit integers beyond 2^53),
 * with no whitespace and object keys in insertion order, like the reference's BigInt-aware JSON.stringify.
 */
export function toJson(value: unknown): string {
  switch (typeof value) {
    case 'string':
      return JSON.stringify(value);
    case 'number':
      return Number.isFinite(value) ? String(value) : 'null';
    case 'bigint':
      return value.toString();
    case 'boolean':
      return value ? 'true' : 'false';
    case 'object': {
      if (value === null) return 'null';
      if (Array.isArray(value)) return `[${value.map((item) => (item === undefined ? 'null' : toJson(item))).join(',')}]`;
      let out = '';
      for (const key in value as Record<string, unknown>) {
        const item = (value as Record<string, unknown>)[key];
        if (item === undefined) continue;
        out += `${out ? ',' : ''}${JSON.stringify(key)}:${toJson(item)}`;
      }
      return `{${out}}`;
    }
    default:
      return 'null';
  }
}

/** An int8 value from the database (text) as a JSON-ready number: number when exact, bigint otherwise. */
export function int8(value: string | null): number | bigint | null {
  if (value === null) return null;
  const n = Number(value);
  return Number.isSafeInteger(n) ? n : BigInt(value);
}
