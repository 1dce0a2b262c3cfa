/** Which configuration keys exist, which have a meaning here, and the warning each other key gets. */
import { FREE_MAPS, HONOURED, REFERENCE_REST_DEFAULTS } from './reference.ts';
import { SERVICE_DEFAULTS, SERVICE_KEYS } from './service.ts';
import { leafPaths } from './tree.ts';

const KNOWN_KEYS = [...leafPaths(REFERENCE_REST_DEFAULTS), ...leafPaths(SERVICE_DEFAULTS)];
const covers = (prefixes: readonly string[], path: string) => prefixes.some((p) => path === p || path.startsWith(`${p}.`));

/** Edit distance, for "did you mean". */
function distance(a: string, b: string): number {
  const row = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    let previous = row[0]!;
    row[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const current = row[j]!;
      row[j] = Math.min(row[j]! + 1, row[j - 1]! + 1, previous + (a[i - 1] === b[j - 1] ? 0 : 1));
      previous = current;
    }
  }
  return row[b.length]!;
}

const closestKey = (path: string): string =>
  KNOWN_KEYS.reduce((best, key) => (distance(path.toLowerCase(), key.toLowerCase()) < distance(path.toLowerCase(), best.toLowerCase()) ? key : best));

/** The warning a user-given key deserves, if any: ignored (the reference's, unused here) or unknown. */
export function keyWarning(path: string, source: string): string | undefined {
  if (covers(FREE_MAPS, path)) return undefined;
  const known = KNOWN_KEYS.some((key) => key === path || key.startsWith(`${path}.`) || path.startsWith(`${key}.`));
  if (!known) return `unknown configuration key ${path} (${source}); did you mean ${closestKey(path)}?`;
  if (covers(HONOURED, path) || covers(SERVICE_KEYS, path)) return undefined;
  return `ignored: not used by this service: ${path} (${source})`;
}
