/**
 * The house check: the import graph of src/ has no circle, no file imports a higher layer than its
 * own, no route family imports another (they share through src/contracts/common, which imports
 * none of them), and no file is over 300 lines. Every route family has the same five kinds of file
 * (params, query, view, schema, <name>Route.ts), and no route file imports another; file names are
 * camelCase. docs/architecture.md draws the same layers.
 */
import assert from 'node:assert/strict';
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, normalize, relative } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const SRC = join(ROOT, 'src');

/** The layers, lowest first: a file may import files of its own layer's folder or of lower layers. */
export const LAYERS: ReadonlyArray<readonly string[]> = [
  ['src/version.ts', 'src/format/', 'src/config/'],
  ['src/db/'],
  ['src/demo/', 'src/http/request/', 'src/http/docs/', 'src/http/compression.ts'],
  ['src/http/route.ts'],
  ['src/http/answer/'],
  ['src/http/cache/'],
  ['src/http/server/routeFlags.ts', 'src/http/server/origin.ts'],
  ['src/http/server/plugins/', 'src/http/server/load/'],
  ['src/http/server/'],
  ['src/contracts/common/'],
  ['src/contracts/'],
  ['src/rpc/'],
  ['src/app.ts'],
  ['src/cli/', 'src/cli.ts'],
];

/** The layer of a file: the longest matching prefix decides (src/http/server/plugins/ before src/http/server/). */
function layerOf(file: string): { layer: number; prefix: string } {
  let best: { layer: number; prefix: string } | undefined;
  LAYERS.forEach((prefixes, layer) => {
    for (const prefix of prefixes) {
      if ((file === prefix || (prefix.endsWith('/') && file.startsWith(prefix))) && (!best || prefix.length > best.prefix.length)) best = { layer, prefix };
    }
  });
  if (!best) throw new Error(`${file} is in no layer of the house check`);
  return best;
}

/** A route family: src/contracts/<family>/ (common is not one). */
const familyOf = (file: string): string | undefined => /^src\/contracts\/([^/]+)\//.exec(file)?.[1];

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? sourceFiles(path) : name.endsWith('.ts') ? [relative(ROOT, path)] : [];
  });
}

const IMPORT = /(?:^|\n)\s*(?:import|export)\b[^'"]*?from\s*['"](\.{1,2}\/[^'"]+)['"]|import\(\s*['"](\.{1,2}\/[^'"]+)['"]\s*\)/g;

function importsOf(file: string): string[] {
  const text = readFileSync(join(ROOT, file), 'utf8');
  const out: string[] = [];
  for (const m of text.matchAll(IMPORT)) out.push(normalize(join(dirname(file), m[1] ?? m[2]!)));
  return out.filter((target) => target.startsWith('src/') && target.endsWith('.ts'));
}

const files = sourceFiles(SRC);
const graph = new Map(files.map((f) => [f, importsOf(f)]));

test('house: no import circle in src/', () => {
  // Tarjan's strongly connected components: any component of two or more files (or a self-import) is a circle
  let index = 0;
  const indexOf = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const circles: string[][] = [];
  const visit = (v: string) => {
    indexOf.set(v, index);
    low.set(v, index++);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!indexOf.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, indexOf.get(w)!));
    }
    if (low.get(v) === indexOf.get(v)) {
      const component: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        component.push(w);
      } while (w !== v);
      if (component.length > 1 || graph.get(v)?.includes(v)) circles.push(component.sort());
    }
  };
  for (const f of files) if (!indexOf.has(f)) visit(f);
  assert.deepEqual(circles, []);
});

test('house: no import from a lower layer to a higher one, no route family importing another', () => {
  const wrong: string[] = [];
  for (const [file, targets] of graph) {
    const from = layerOf(file);
    for (const target of targets) {
      const to = layerOf(target);
      if (to.layer > from.layer) wrong.push(`${file} (layer ${from.layer}) imports ${target} (layer ${to.layer})`);
      else if (to.layer === from.layer && to.prefix !== from.prefix && from.prefix.endsWith('/')) {
        wrong.push(`${file} imports ${target}: another folder of its own layer`);
      }
      const a = familyOf(file);
      const b = familyOf(target);
      if (a !== undefined && b !== undefined && a !== b && b !== 'common') wrong.push(`${file} (family ${a}) imports ${target} (family ${b})`);
    }
  }
  assert.deepEqual(wrong, []);
});

test('house: every file is in a layer, and none is over 300 lines', () => {
  const long = files.map((f) => [f, readFileSync(join(ROOT, f), 'utf8').split('\n').length - 1] as const).filter(([, n]) => n > 300);
  assert.deepEqual(long, []);
  for (const f of files) layerOf(f);
});

/** The route families: every folder of src/contracts/ but common. */
const families = [...new Set(files.map(familyOf).filter((f): f is string => f !== undefined && f !== 'common'))].sort();
const isRouteFile = (file: string): boolean => /Route\.ts$/.test(file);

test('house: every route family has params, query, view, schema and <name>Route.ts files', () => {
  const missing: string[] = [];
  for (const family of families) {
    const own = files.filter((f) => f.startsWith(`src/contracts/${family}/`)).map((f) => f.slice(`src/contracts/${family}/`.length));
    for (const kind of ['params.ts', 'query.ts', 'view.ts', 'schema.ts']) if (!own.includes(kind)) missing.push(`${family}/${kind}`);
    if (!own.some((f) => !f.includes('/') && isRouteFile(f))) missing.push(`${family}/<name>Route.ts`);
  }
  assert.deepEqual(families, ['actions', 'call', 'contract', 'logs', 'results', 'state']);
  assert.deepEqual(missing, []);
});

test('house: a route file is named <name>Route.ts, exports a Route, and imports no other route file', () => {
  const wrong: string[] = [];
  for (const file of files.filter((f) => familyOf(f) !== undefined && familyOf(f) !== 'common')) {
    const exportsRoute = /export const \w+Route: Route\b/.test(readFileSync(join(ROOT, file), 'utf8'));
    if (exportsRoute && !/\/[a-z][A-Za-z]*Route\.ts$/.test(file)) wrong.push(`${file} exports a route but is not named <name>Route.ts`);
    if (isRouteFile(file) && !exportsRoute) wrong.push(`${file} is named as a route but exports none`);
    for (const target of graph.get(file) ?? []) if (isRouteFile(file) && isRouteFile(target)) wrong.push(`${file} imports ${target}`);
  }
  assert.deepEqual(wrong, []);
});

test('house: file names in src/ and test/ are camelCase', () => {
  const named = (dir: string): string[] =>
    readdirSync(dir).flatMap((name) => {
      const path = join(dir, name);
      return statSync(path).isDirectory() ? [relative(ROOT, path), ...named(path)] : name.endsWith('.ts') ? [relative(ROOT, path)] : [];
    });
  const wrong = [...named(SRC), ...named(join(ROOT, 'test'))].filter((path) => !/^[a-z][A-Za-z0-9]*(\.test)?(\.ts)?$/.test(path.split('/').pop()!));
  assert.deepEqual(wrong, []);
});
