/**
 * The bench's registry (bench/scenarios/index.ts) and its one entry (bench/main.ts): every scenario
 * has a line of what it measures, loads, answers --help with a usage that names every option it
 * takes, refuses an unknown option; `list` names them all.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { test } from 'node:test';
import { helpOf, parseScenarioArgs } from '../../bench/lib/scenario.ts';
import { SCENARIOS, findScenario } from '../../bench/scenarios/index.ts';
import { ROOT } from '../cli/run.ts';

class UsageError extends Error {}
const fail = (message: string): never => {
  throw new UsageError(message);
};

const bench = (...args: string[]) =>
  spawnSync(process.execPath, ['--import', 'tsx', 'bench/main.ts', ...args], { cwd: ROOT, encoding: 'utf8', timeout: 60_000 });

test('every scenario: a description, a module, --help naming each of its options, unknown options refused', async () => {
  assert.ok(SCENARIOS.length > 0);
  assert.equal(new Set(SCENARIOS.map((s) => s.name)).size, SCENARIOS.length, 'a name twice');
  const undocumented: string[] = [];
  for (const entry of SCENARIOS) {
    assert.match(entry.name, /^[a-z]+(-[a-z]+)*$/, entry.name);
    assert.ok(entry.summary.length >= 20 && !entry.summary.includes('\n'), `${entry.name}: one line of what it measures`);
    assert.equal(findScenario(entry.name), entry);
    const scenario = await entry.load();
    assert.equal(typeof scenario.run, 'function', entry.name);
    assert.deepEqual(parseScenarioArgs(entry, scenario, ['--help'], fail), { help: true }, entry.name);
    const help = helpOf(entry, scenario);
    assert.ok(help.startsWith(`Usage: npm run bench -- ${entry.name} `), help);
    assert.ok(help.includes(entry.summary), help);
    for (const option of Object.keys(scenario.options)) if (!new RegExp(`--${option}\\b`).test(help)) undocumented.push(`${entry.name} --${option}`);
    assert.throws(() => parseScenarioArgs(entry, scenario, ['--no-such-option'], fail), (err: Error) => err instanceof UsageError && /Unknown option/.test(err.message), entry.name);
  }
  assert.deepEqual(undocumented, [], 'options missing from their scenario\'s help');
});

test('npm run bench -- list names every scenario; <scenario> --help prints its options; a wrong name exits 2', { timeout: 120_000 }, () => {
  const list = bench('list');
  assert.equal(list.status, 0, list.stderr);
  const names = list.stdout.trimEnd().split('\n').map((line) => line.trim().split(/\s+/)[0]);
  assert.deepEqual(names, SCENARIOS.map((s) => s.name));
  const help = bench('soak', '--help');
  assert.equal(help.status, 0, help.stderr);
  assert.match(help.stdout, /^Usage: npm run bench -- soak \[options\]\n/);
  assert.match(help.stdout, /--max-rss-growth MB/);
  const wrong = bench('no-such-scenario');
  assert.equal(wrong.status, 2);
  assert.match(wrong.stderr, /no scenario "no-such-scenario"/);
  const badOption = bench('run', '--url-file', 'x', '--nope');
  assert.equal(badOption.status, 2);
  assert.match(badOption.stderr, /Unknown option '--nope'/);
});
