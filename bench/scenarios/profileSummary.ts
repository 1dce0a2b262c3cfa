/**
 * Summarises a V8 .cpuprofile (node --cpu-prof): top functions by self time, self time per
 * package / area, and top inclusive ("total") time of the project's own functions.
 *
 *   npm run bench -- profile-summary /tmp/cqs-prof/CPU.*.cpuprofile [--top 25]
 */
import { readFileSync } from 'node:fs';
import { numberOptions } from '../lib/cli.ts';
import { type OptionsConfig, type ScenarioArgs, defineScenario } from '../lib/scenario.ts';

interface CallFrame {
  functionName: string;
  url: string;
  lineNumber: number;
  columnNumber: number;
}
interface ProfileNode {
  id: number;
  callFrame: CallFrame;
  children?: number[];
}
interface CpuProfile {
  nodes: ProfileNode[];
  startTime: number;
  endTime: number;
  samples: number[];
  timeDeltas: number[];
}

const SPECIAL = new Set(['(root)', '(program)', '(idle)', '(garbage collector)']);

/** Where a frame's code lives: a package of node_modules, a Node.js internal module, the project, or V8. */
export function area(frame: CallFrame): string {
  const { url, functionName } = frame;
  if (!url) return SPECIAL.has(functionName) ? functionName : '(native / V8 builtins)';
  if (url.startsWith('node:')) {
    const m = /^node:(?:internal\/)?([^/]+)/.exec(url);
    return `node:${m?.[1] ?? url}`;
  }
  const nm = url.lastIndexOf('/node_modules/');
  if (nm >= 0) {
    const rest = url.slice(nm + '/node_modules/'.length).split('/');
    return rest[0]!.startsWith('@') ? `${rest[0]}/${rest[1]}` : rest[0]!;
  }
  const src = url.indexOf('/src/');
  if (src >= 0) return `project ${url.slice(src + 1).split('/').slice(0, 2).join('/')}`;
  return url.replace(/^file:\/\//, '');
}

function location(frame: CallFrame): string {
  if (!frame.url) return '';
  let u = frame.url.replace(/^file:\/\//, '');
  const nm = u.lastIndexOf('/node_modules/');
  if (nm >= 0) u = u.slice(nm + '/node_modules/'.length);
  else if (u.includes('/src/')) u = u.slice(u.indexOf('/src/') + 1);
  return `${u}:${frame.lineNumber + 1}`;
}

const key = (f: CallFrame) => `${f.functionName || '(anonymous)'} ${location(f)}`;

const USAGE = `  FILE.cpuprofile      a profile written by node --cpu-prof
  --top N              functions to list                                            (default 25)`;

const OPTIONS = { top: { type: 'string' } } satisfies OptionsConfig;

function main({ values, positionals, fail }: ScenarioArgs<typeof OPTIONS>): void {
  const top = numberOptions(fail).positiveInteger('top', values.top, 25);
  if (positionals.length !== 1) fail(`one profile is needed, got ${positionals.length}`);
  const profile = JSON.parse(readFileSync(positionals[0]!, 'utf8')) as CpuProfile;
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));

  // self time per node: each sample owns the time until the next sample
  const self = new Map<number, number>();
  const { samples, timeDeltas } = profile;
  for (let i = 0; i < samples.length; i++) {
    const dt = i + 1 < timeDeltas.length ? timeDeltas[i + 1]! : 0;
    self.set(samples[i]!, (self.get(samples[i]!) ?? 0) + Math.max(0, dt));
  }
  const totalUs = [...self.values()].reduce((a, b) => a + b, 0);
  let idleUs = 0;
  for (const [id, us] of self) if (byId.get(id)?.callFrame.functionName === '(idle)') idleUs += us;
  const busyUs = totalUs - idleUs;

  const selfByKey = new Map<string, number>();
  const selfByArea = new Map<string, number>();
  for (const [id, us] of self) {
    const f = byId.get(id)!.callFrame;
    if (f.functionName === '(idle)') continue;
    selfByKey.set(key(f), (selfByKey.get(key(f)) ?? 0) + us);
    selfByArea.set(area(f), (selfByArea.get(area(f)) ?? 0) + us);
  }

  // inclusive time per function (counted once per stack even when recursive)
  const parentOf = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parentOf.set(c, n.id);
  const inclusive = new Map<string, number>();
  for (const [id, us] of self) {
    const seen = new Set<string>();
    for (let cur: number | undefined = id; cur !== undefined; cur = parentOf.get(cur)) {
      const f = byId.get(cur)!.callFrame;
      if (SPECIAL.has(f.functionName)) continue;
      const k = key(f);
      if (seen.has(k)) continue;
      seen.add(k);
      inclusive.set(k, (inclusive.get(k) ?? 0) + us);
    }
  }

  const ms = (us: number) => (us / 1000).toFixed(0).padStart(7);
  const pct = (us: number) => `${((us / busyUs) * 100).toFixed(1).padStart(5)}%`;
  const out: string[] = [];
  out.push(`profile: ${(totalUs / 1e6).toFixed(1)} s sampled, ${samples.length} samples; idle ${(idleUs / 1e6).toFixed(1)} s; ` +
    `busy ${(busyUs / 1e6).toFixed(1)} s (percentages below are of busy time)`);
  out.push('\nself time by area:');
  for (const [k, us] of [...selfByArea].sort((a, b) => b[1] - a[1]).slice(0, top)) out.push(`${ms(us)} ms ${pct(us)}  ${k}`);
  out.push('\ntop functions by self time:');
  for (const [k, us] of [...selfByKey].sort((a, b) => b[1] - a[1]).slice(0, top)) out.push(`${ms(us)} ms ${pct(us)}  ${k}`);
  out.push('\ntop project (src/) functions by inclusive time:');
  for (const [k, us] of [...inclusive].filter(([k]) => / src\//.test(k)).sort((a, b) => b[1] - a[1]).slice(0, top)) {
    out.push(`${ms(us)} ms ${pct(us)}  ${k}`);
  }
  process.stdout.write(`${out.join('\n')}\n`);
}

export default defineScenario({ usage: USAGE, options: OPTIONS, positionals: 'FILE.cpuprofile', run: main });
