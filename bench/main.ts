#!/usr/bin/env -S npx tsx
/**
 * The bench's one entry: `npm run bench -- <scenario> [options]`, `npm run bench -- list`,
 * `npm run bench -- <scenario> --help`. The scenarios are in bench/scenarios/index.ts.
 */
import { SCENARIOS, findScenario } from './scenarios/index.ts';
import { helpOf, parseScenarioArgs } from './lib/scenario.ts';

const USAGE = `Usage: npm run bench -- <scenario> [options]
       npm run bench -- <scenario> --help     its options
       npm run bench -- list                  every scenario, with what it measures`;

function list(): string {
  const width = Math.max(...SCENARIOS.map((s) => s.name.length));
  return SCENARIOS.map((s) => `  ${s.name.padEnd(width)}  ${s.summary}`).join('\n');
}

/** A plain Error is a condition the scenario explains in its message; anything else is a bug, shown with its stack. */
function describe(err: unknown): string {
  if (err instanceof Error) return err.constructor === Error ? err.message : (err.stack ?? err.message);
  return String(err);
}

async function main(argv: string[]): Promise<void> {
  const [name, ...rest] = argv;
  if (name === undefined || name === '--help' || name === '-h') {
    process.stdout.write(`${USAGE}\n\nScenarios:\n${list()}\n`);
    if (name === undefined) process.exitCode = 2;
    return;
  }
  if (name === 'list') {
    process.stdout.write(`${list()}\n`);
    return;
  }
  const entry = findScenario(name);
  if (!entry) {
    process.stderr.write(`error: no scenario ${JSON.stringify(name)}\n\n${USAGE}\n\nScenarios:\n${list()}\n`);
    process.exitCode = 2;
    return;
  }
  const scenario = await entry.load();
  const parsed = parseScenarioArgs(entry, scenario, rest);
  if (parsed.help) {
    process.stdout.write(`${helpOf(entry, scenario)}\n`);
    return;
  }
  await scenario.run(parsed.args);
}

main(process.argv.slice(2)).catch((err: unknown) => {
  process.stderr.write(`error: ${describe(err)}\n`);
  process.exit(1);
});
