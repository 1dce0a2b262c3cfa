/**
 * What a bench scenario is, and the one command-line parser every scenario's options go through
 * (node:util parseArgs, strict): `npm run bench -- <name> [options]`, `--help` for its usage.
 */
import { type ParseArgsConfig, parseArgs } from 'node:util';
import { type Fail, usageFailure } from './cli.ts';

export type OptionsConfig = NonNullable<ParseArgsConfig['options']>;

/** The values parseArgs gives for `O`, positionals allowed. */
export type Values<O extends OptionsConfig> = ReturnType<typeof parseArgs<{ options: O; allowPositionals: true }>>['values'];

export interface ScenarioArgs<O extends OptionsConfig> {
  values: Values<O>;
  positionals: string[];
  /** A usage error: the message and the scenario's help to stderr, exit code 2. */
  fail: Fail;
}

export interface Scenario<O extends OptionsConfig = OptionsConfig> {
  /** The option lines of the help, one option a line with its default. */
  usage: string;
  options: O;
  /** What the positional arguments are (`FILE ...`); none are accepted without it. */
  positionals?: string;
  /** Sets process.exitCode for a verdict; a thrown error is reported by bench/main.ts (exit code 1). */
  run(args: ScenarioArgs<O>): Promise<void> | void;
}

/** A scenario with its options' types inferred from `options`. */
export function defineScenario<const O extends OptionsConfig>(scenario: Scenario<O>): Scenario<O> {
  return scenario;
}

/** The registry's line of a scenario: its name, what it measures, and its module, loaded on demand. */
export interface ScenarioEntry {
  name: string;
  summary: string;
  load(): Promise<Scenario<OptionsConfig>>;
}

/** The whole help of a scenario: how to call it, what it measures, its options. */
export function helpOf(entry: ScenarioEntry, scenario: Scenario<OptionsConfig>): string {
  const positionals = scenario.positionals ? ` ${scenario.positionals}` : '';
  return `Usage: npm run bench -- ${entry.name} [options]${positionals}\n\n${entry.summary}\n\n${scenario.usage}\n  --help               this help`;
}

export type Parsed = { help: true } | { help: false; args: ScenarioArgs<OptionsConfig> };

/**
 * `argv` parsed against the scenario's options. `--help` (or `-h`) anywhere answers `help`; an
 * unknown option, a missing value or a positional the scenario does not take is a usage error
 * through `fail` (by default: message and help to stderr, exit 2).
 */
export function parseScenarioArgs(entry: ScenarioEntry, scenario: Scenario<OptionsConfig>, argv: string[], fail: Fail = usageFailure(helpOf(entry, scenario))): Parsed {
  if (argv.includes('--help') || argv.includes('-h')) return { help: true };
  let parsed;
  try {
    parsed = parseArgs({ args: argv, options: scenario.options, allowPositionals: true, strict: true });
  } catch (err) {
    return fail((err as Error).message);
  }
  if (parsed.positionals.length > 0 && !scenario.positionals) fail(`${entry.name} takes no positional argument, got ${parsed.positionals[0]}`);
  return { help: false, args: { values: parsed.values, positionals: parsed.positionals, fail } };
}
