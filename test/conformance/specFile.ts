import { readFileSync, readdirSync, statSync, existsSync } from 'node:fs';
import { basename, dirname, join, resolve, sep } from 'node:path';
import JSONbig from 'json-bigint';

/** Spec files and response bodies are parsed like the reference runner: long number literals become BigInt. */
export const bigJson = JSONbig({ useNativeBigInt: true });

export interface SpecCase {
  url: string;
  status: number;
  body: unknown;
}

export interface SpecFile {
  file: string;
  setup: Record<string, unknown>;
  /** Config overrides (merged over the defaults) for one run, and that run's cases. */
  runs: Array<{ label: string; config: Record<string, unknown>; cases: SpecCase[] }>;
  headers: Record<string, string>;
}

const DEFAULT_HEADERS = { 'cache-control': 'public, max-age=1' };

/** Every spec file below the given files/folders (responseHeaders.json files are not specs). */
export function findSpecFiles(paths: string[]): string[] {
  const files: string[] = [];
  const walk = (path: string) => {
    if (statSync(path).isDirectory()) {
      for (const entry of readdirSync(path).sort()) walk(join(path, entry));
    } else if (path.endsWith('.json') && !path.endsWith(`${sep}responseHeaders.json`)) {
      files.push(path);
    }
  };
  for (const path of paths) walk(resolve(path));
  return files;
}

/**
 * The folder's resolved headers from response-headers.json beside the spec folders (they inherit
 * from folders of the reference's tree that were not copied), for a spec under `<conformance>/<group>/<folder>`.
 */
function resolvedHeaders(file: string): Record<string, string> | undefined {
  const folder = dirname(file);
  const conformance = dirname(dirname(folder));
  const table = join(conformance, 'response-headers.json');
  if (!existsSync(table)) return undefined;
  const key = `${basename(dirname(folder))}/${basename(folder)}`;
  const entry = (JSON.parse(readFileSync(table, 'utf8')) as Record<string, { headers?: Record<string, string> }>)[key];
  return entry?.headers;
}

/**
 * The nearest responseHeaders.json from the spec's folder up to (and including) `root`, else the
 * folder's resolved headers, else the default.
 */
function folderHeaders(file: string, root: string): Record<string, string> {
  let dir = dirname(file);
  for (;;) {
    const candidate = join(dir, 'responseHeaders.json');
    if (existsSync(candidate)) return JSON.parse(readFileSync(candidate, 'utf8')) as Record<string, string>;
    if (dir === root || dirname(dir) === dir || !dir.startsWith(root)) return resolvedHeaders(file) ?? DEFAULT_HEADERS;
    dir = dirname(dir);
  }
}

/** A `url` given as an array is sent as one request with the entries joined by commas (reference runner quirk). */
function urlsOf(test: Record<string, unknown>): string[] {
  if (Array.isArray(test.urls)) return test.urls.map(String);
  if (Array.isArray(test.url)) return [test.url.map(String).join(',')];
  return [String(test.url)];
}

function casesOf(spec: Record<string, unknown>, matrixKey: string | undefined): SpecCase[] {
  const tests = Array.isArray(spec.tests) ? (spec.tests as Record<string, unknown>[]) : [spec];
  return tests.flatMap((test) => {
    let body = test.responseJson;
    const matrix = test.responseJsonMatrix as Record<string, Record<string, unknown>> | undefined;
    if (matrixKey && matrix?.[matrixKey] && typeof body === 'object' && body !== null) {
      body = { ...(body as Record<string, unknown>), ...matrix[matrixKey] };
    }
    return urlsOf(test).map((url) => ({ url, status: Number(test.responseStatus), body }));
  });
}

export function readSpecFile(file: string, root: string): SpecFile {
  const spec = bigJson.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
  const setup = (spec.setup ?? {}) as Record<string, unknown>;
  const config = (setup.config ?? {}) as Record<string, unknown>;
  const headers = { ...folderHeaders(file, root), ...((spec.responseHeaders ?? {}) as Record<string, string>) };
  const runs: SpecFile['runs'] = [];
  if (spec.matrix === 'bindTimestampRangeMatrix.js') {
    for (const bind of [false, true]) {
      const query = { ...((config.query as object) ?? {}), bindTimestampRange: bind };
      runs.push({
        label: `bindTimestampRange=${bind}`,
        config: { ...config, query },
        cases: casesOf(spec, bind ? 'bindTimestampRange=true' : undefined),
      });
    }
  } else {
    runs.push({ label: '', config, cases: casesOf(spec, undefined) });
  }
  return { file, setup, runs, headers };
}
