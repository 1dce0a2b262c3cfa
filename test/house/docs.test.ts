/**
 * The docs' commands run as written: README.md, docs/*.md (not docs/history/, a record of the past)
 * and every README.md under bench/ name only `npm run` scripts of package.json, only bench scenarios
 * of bench/scenarios/index.ts (`npm run bench -- <scenario>`), only repository files that exist
 * (src/, test/, bench/, docs/, scripts/, image/, deploy/, .ci/: in prose, backticks, code blocks or
 * links), and relative links that resolve to a file and, into a Markdown file, to one of its
 * headings. README's "In short" quotes docs/performance.md's summary, figure for figure.
 *
 * And the house rules of docs/ (earlier figures and the builds they were measured at belong in
 * docs/history/): no docs/*.md outside docs/history/ over 400 lines, and no commit of this
 * repository named in the docs above.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, normalize, relative } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { SCENARIOS } from '../../bench/scenarios/index.ts';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

/** What a doc may name: package.json's scripts, the bench's scenarios, the repository's files. */
export interface Repo {
  scripts: ReadonlySet<string>;
  scenarios: ReadonlySet<string>;
  /** A repository-relative path (a folder ends with /; `*` matches within one name) exists. */
  exists(path: string): boolean;
  /** The anchors of a repository-relative Markdown file's headings; undefined when it is not one. */
  anchors(path: string): ReadonlySet<string> | undefined;
}

/** The top folders whose paths the docs name from the repository's root. */
const TOPS = ['src', 'test', 'bench', 'docs', 'scripts', 'image', 'deploy', '.ci'];
const PATH = new RegExp(`^(?:\\./)?(?:${TOPS.map((t) => t.replace('.', '\\.')).join('|')})/`);
/** `npm run bench -- list` is main.ts's own command beside the scenarios. */
const BENCH_COMMANDS = ['list'];
/** Files that a documented command writes, which a doc may name before they exist: none so far. */
export const WRITTEN_BY_COMMANDS: readonly string[] = [];

/** GitHub's anchor of a heading: lower case, punctuation but - and _ dropped, spaces as -. */
export function slugOf(heading: string): string {
  const text = heading.replace(/\[([^\]]*)\]\([^)]*\)/g, '$1');
  return text.toLowerCase().replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '').replace(/ /g, '-');
}

/** The lines of a Markdown text, each marked whether it is inside a fenced code block (fences count as code). */
function linesOf(text: string): Array<{ line: string; code: boolean; n: number }> {
  let fence: string | undefined;
  return text.split('\n').map((line, i) => {
    const open = /^\s*(`{3,}|~{3,})/.exec(line);
    if (open) {
      const mark = open[1]!;
      if (fence === undefined) fence = mark[0]!.repeat(mark.length);
      else if (mark.startsWith(fence)) {
        fence = undefined;
        return { line, code: true, n: i + 1 };
      }
      return { line, code: true, n: i + 1 };
    }
    return { line, code: fence !== undefined, n: i + 1 };
  });
}

/** The anchors of a Markdown text's headings, a repeated heading's with -1, -2, ... as GitHub numbers them. */
export function anchorsOf(text: string): Set<string> {
  const seen = new Map<string, number>();
  const out = new Set<string>();
  for (const { line, code } of linesOf(text)) {
    const m = code ? null : /^#{1,6}\s+(.*?)(?:\s+#+)?\s*$/.exec(line);
    if (!m) continue;
    const slug = slugOf(m[1]!);
    const count = seen.get(slug) ?? 0;
    seen.set(slug, count + 1);
    out.add(count === 0 ? slug : `${slug}-${count}`);
  }
  return out;
}

const NPM_RUN = /\bnpm\s+run((?:\s+-{1,2}[a-z]+)*)\s+([A-Za-z][\w:.-]*)(?:[ \t]+--(?:[ \t]*\\?\n)?\s+([^\s`'",;)]+))?/g;
const NPM_BUILTIN = /\bnpm\s+(start|test)\b/g;
const LINK = /\[((?:[^\]`]|`[^`]*`)*)\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g;

/**
 * Every problem of one doc (repository-relative `file`, its `text`): each names the line and what
 * does not exist.
 */
export function problemsOf(file: string, text: string, repo: Repo): string[] {
  const problems: string[] = [];
  const lineAt = (index: number) => text.slice(0, index).split('\n').length;
  for (const m of text.matchAll(NPM_RUN)) {
    const [, , script] = m;
    const scenario = m[3]?.replace(/[.:]+$/, '');
    const at = `${file}:${lineAt(m.index)}`;
    if (!repo.scripts.has(script!)) problems.push(`${at}: npm run ${script}: no such script in package.json`);
    else if (script === 'bench' && scenario && !/^[-<[$.]/.test(scenario)) {
      if (!repo.scenarios.has(scenario) && !BENCH_COMMANDS.includes(scenario)) problems.push(`${at}: npm run bench -- ${scenario}: no such scenario in bench/scenarios/index.ts`);
    }
  }
  for (const m of text.matchAll(NPM_BUILTIN)) {
    if (!repo.scripts.has(m[1]!)) problems.push(`${file}:${lineAt(m.index)}: npm ${m[1]}: no such script in package.json`);
  }
  const here = dirname(file);
  for (const { line, code, n } of linesOf(text)) {
    for (const raw of line.split(/[\s`'"()[\]=,;|]+/)) {
      const token = raw.replace(/[.:!?*]+$/, '').replace(/#.*$/, '').replace(/:\d+$/, '');
      if (!PATH.test(token) || /[<{$&]|\.\.\./.test(token)) continue;
      const path = token.replace(/^\.\//, '');
      if (!repo.exists(path) && !WRITTEN_BY_COMMANDS.includes(path)) problems.push(`${file}:${n}: ${path}: no such file in the repository`);
    }
    if (code) continue;
    for (const m of line.matchAll(LINK)) {
      const target = m[2]!;
      if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue;
      const [pathPart, anchor] = target.split('#', 2) as [string, string | undefined];
      const resolved = pathPart === '' ? file : normalize(join(here, decodeURI(pathPart)));
      if (resolved.startsWith('..') || resolved.startsWith('/')) {
        problems.push(`${file}:${n}: link ${target} leaves the repository`);
        continue;
      }
      const asFolder = pathPart.endsWith('/') ? resolved.replace(/\/?$/, '/') : resolved;
      if (!repo.exists(asFolder)) {
        problems.push(`${file}:${n}: link ${target}: no such file`);
        continue;
      }
      if (anchor === undefined || anchor === '') continue;
      const anchors = repo.anchors(resolved);
      if (anchors && !anchors.has(anchor.toLowerCase())) problems.push(`${file}:${n}: link ${target}: no heading #${anchor} in ${resolved}`);
    }
  }
  return problems;
}

/** The repository on disk, as the docs see it. */
export function repoOnDisk(root: string): Repo {
  const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
  const cache = new Map<string, Set<string>>();
  const matches = (dir: string, parts: string[]): boolean => {
    const [head, ...rest] = parts;
    if (head === undefined) return true;
    if (head === '') return rest.length === 0 && statSync(join(root, dir)).isDirectory();
    const names = head.includes('*')
      ? readdirSync(join(root, dir)).filter((name) => new RegExp(`^${head.split('*').map((s) => s.replace(/[.+?^${}()|[\]\\]/g, '\\$&')).join('[^/]*')}$`).test(name))
      : existsSync(join(root, dir, head)) ? [head] : [];
    return names.some((name) => {
      const path = join(dir, name);
      if (rest.length === 0) return true;
      return statSync(join(root, path)).isDirectory() && matches(path, rest);
    });
  };
  return {
    scripts: new Set(Object.keys(pkg.scripts)),
    scenarios: new Set(SCENARIOS.map((s) => s.name)),
    exists: (path) => matches('', path.split('/')),
    anchors: (path) => {
      if (!path.endsWith('.md') || !existsSync(join(root, path))) return undefined;
      if (!cache.has(path)) cache.set(path, anchorsOf(readFileSync(join(root, path), 'utf8')));
      return cache.get(path);
    },
  };
}

/** The docs this test keeps true: README.md, docs/*.md outside docs/history/, every README.md under bench/. */
export function checkedDocs(root: string): string[] {
  const readmes = (dir: string): string[] =>
    readdirSync(join(root, dir)).flatMap((name) => {
      const path = join(dir, name);
      return statSync(join(root, path)).isDirectory() ? readmes(path) : name === 'README.md' ? [path] : [];
    });
  const docs = readdirSync(join(root, 'docs')).filter((name) => name.endsWith('.md')).map((name) => `docs/${name}`);
  return ['README.md', ...docs.sort(), ...readmes('bench').sort()];
}

test('docs: every npm script, bench scenario, repository file and relative link they name exists', () => {
  const repo = repoOnDisk(ROOT);
  const problems = checkedDocs(ROOT).flatMap((file) => problemsOf(file, readFileSync(join(ROOT, file), 'utf8'), repo));
  assert.deepEqual(problems, []);
});

test('docs: the checker finds a missing script, scenario, file, link and heading', () => {
  const files = new Set(['docs/', 'docs/a.md', 'docs/b.md', 'bench/', 'bench/scenarios/', 'bench/scenarios/soak.ts', 'test/', 'test/x/', 'test/x/fuzz.test.ts']);
  const repo: Repo = {
    scripts: new Set(['bench', 'start']),
    scenarios: new Set(['soak', 'run']),
    exists: (path) => files.has(path) || (path.includes('*') && [...files].some((f) => new RegExp(`^${path.replace(/\./g, '\\.').replace(/\*/g, '[^/]*')}$`).test(f))),
    anchors: (path) => (path === 'docs/b.md' ? anchorsOf('# B\n\n## Soak (issue 16)\n\n```sh\n# not a heading\n```\n## Soak (issue 16)\n') : undefined),
  };
  const good = [
    '`npm run bench -- soak --minutes 30`, `npm run -s bench -- run`, `npm run bench -- <scenario>`, `npm run bench -- list`, `npm start`',
    '`bench/scenarios/soak.ts` and bench/scenarios/, `test/*/fuzz.test.ts`, `bench/scenarios/<name>.ts`',
    '[b](b.md), [soak](b.md#soak-issue-16), [again](b.md#soak-issue-16-1), [bench](../bench/scenarios/), [web](https://example.org/x)',
    '```sh\nnpm run bench -- \\\n  soak\n```',
  ].join('\n');
  assert.deepEqual(problemsOf('docs/a.md', good, repo), []);
  const bad = [
    '`npm run soak -- --minutes 30`, npm run bench -- shed-cost, `npm test`',
    'see `bench/soak.ts` and test/http/fuzzUpstream.test.ts.',
    '[c](c.md), [b](b.md#not-a-heading), [out](../../elsewhere.md)',
    '```sh\nnpx tsx bench/hostile.ts --rounds 3\n```',
  ].join('\n');
  assert.deepEqual(problemsOf('docs/a.md', bad, repo), [
    'docs/a.md:1: npm run soak: no such script in package.json',
    'docs/a.md:1: npm run bench -- shed-cost: no such scenario in bench/scenarios/index.ts',
    'docs/a.md:1: npm test: no such script in package.json',
    'docs/a.md:2: bench/soak.ts: no such file in the repository',
    'docs/a.md:2: test/http/fuzzUpstream.test.ts: no such file in the repository',
    'docs/a.md:3: link c.md: no such file',
    'docs/a.md:3: link b.md#not-a-heading: no heading #not-a-heading in docs/b.md',
    'docs/a.md:3: link ../../elsewhere.md leaves the repository',
    'docs/a.md:5: bench/hostile.ts: no such file in the repository',
  ]);
});

test('docs: the anchors of headings are GitHub\'s', () => {
  assert.equal(slugOf('Compared with the relay (`npm run bench -- rpc-difftest`)'), 'compared-with-the-relay-npm-run-bench----rpc-difftest');
  assert.equal(slugOf('eth_getLogs in one request (issue 27)'), 'eth_getlogs-in-one-request-issue-27');
  assert.equal(slugOf("Bench mix, uncached, importer's schema, one process"), 'bench-mix-uncached-importers-schema-one-process');
});

/** The ratios a text quotes (5.87x, 0.299x), each once. */
export function ratiosIn(text: string): string[] {
  return [...new Set(text.match(/(?<![\d.])\d+(?:\.\d+)?x\b/g) ?? [])];
}

test("docs: README's \"In short\" quotes docs/performance.md's summary, figure for figure", () => {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
  const performance = readFileSync(join(ROOT, 'docs', 'performance.md'), 'utf8');
  const inShort = /^In short\b[\s\S]*?(?:\n\n|$)/m.exec(readme)?.[0];
  const summary = /^## Summary\n[\s\S]*?(?=\n## )/m.exec(performance)?.[0];
  assert.ok(inShort && summary, 'README.md has its "In short" paragraph, docs/performance.md its "## Summary"');
  const quoted = ratiosIn(summary);
  assert.deepEqual(ratiosIn(inShort).filter((r) => !quoted.includes(r)), [], 'take README\'s figures from the summary, or only link to it');
  assert.deepEqual(ratiosIn('at 3.80x-5.09x, 10.18x and 0.18x'), ['3.80x', '5.09x', '10.18x', '0.18x']);
});

/** The longest a doc of docs/ (outside docs/history/) may be. */
export const MAX_DOC_LINES = 400;

test('house: no docs/*.md outside docs/history/ is over 400 lines', () => {
  const long = checkedDocs(ROOT)
    .filter((file) => file.startsWith('docs/'))
    .map((file) => [file, readFileSync(join(ROOT, file), 'utf8').split('\n').length - 1] as const)
    .filter(([, n]) => n > MAX_DOC_LINES);
  assert.deepEqual(long, [], 'move earlier runs and superseded figures to docs/history/');
});

/**
 * The words of a text that name a commit of the repository at `root` (7 to 40 hex digits that git
 * resolves to a commit: an address or a hash of something else is not one); undefined without git.
 */
export function commitsIn(root: string, text: string): string[] | undefined {
  const words = [...new Set(text.match(/\b[0-9a-f]{7,40}\b/g) ?? [])];
  if (words.length === 0) return [];
  const git = spawnSync('git', ['-C', root, 'cat-file', '--batch-check=%(objecttype)'], { input: words.map((w) => `${w}^{commit}\n`).join(''), encoding: 'utf8' });
  if (git.status !== 0) return undefined;
  const answers = git.stdout.split('\n');
  return words.filter((_, i) => answers[i] === 'commit');
}

test('house: no commit hash in the docs outside docs/history/', (t) => {
  const head = spawnSync('git', ['-C', ROOT, 'rev-parse', '--short=9', 'HEAD'], { encoding: 'utf8' }).stdout.trim();
  const probe = commitsIn(ROOT, `at ${head.slice(0, 7)}, address 0x00000000000000000000000000000000000003e9, deadbeefcafe`);
  if (probe === undefined || head === '') return t.skip('no git repository here');
  assert.deepEqual(probe, [head.slice(0, 7)], 'the check finds a commit and only a commit');
  const named = checkedDocs(ROOT).flatMap((file) => (commitsIn(ROOT, readFileSync(join(ROOT, file), 'utf8')) ?? []).map((c) => `${file}: ${c}`));
  assert.deepEqual(named, [], 'name the date instead, and keep runs of earlier builds in docs/history/');
});
