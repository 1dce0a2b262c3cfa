/**
 * Differential test of two JSON-RPC endpoints on the same mirror node database (the relay in front of
 * the reference, and this service's /rpc): random calls from a seed, each sent to both, the answers
 * compared as JSON (filter ids by their shape). Prints a summary per kind and every difference;
 * --out writes every case that differs (beyond the differences kept on purpose, kept.ts), with both answers, as JSON. With ws:// endpoints
 * (the relay's ws-server, this service's WebSocket) each case runs on a connection of its own per
 * side (wsJsonRpc.ts), and eth_subscribe and ws-server batch cases join the mix (subscribeCases.ts). See bench/rpc/README.md.
 */
import { writeFileSync } from 'node:fs';
import { random } from '../lib/random.ts';
import { loopbackUrl, numberOptions } from '../lib/cli.ts';
import { type OptionsConfig, type ScenarioArgs, defineScenario } from '../lib/scenario.ts';
import { type Case, generateCase, KINDS } from './cases.ts';
import { compareReplies, maskRequestIds, type StepResult } from './compare.ts';
import { keptDifference } from './kept.ts';
import { Picker } from './filters.ts';
import { post, type Reply } from './jsonRpc.ts';
import { WS_KINDS, wsOnlyCase } from './subscribeCases.ts';
import { openSide } from './wsJsonRpc.ts';
import { samplePool } from './sample.ts';

const USAGE = `  --a URL              endpoint A (e.g. the relay: http://127.0.0.1:7546, its ws-server: ws://127.0.0.1:8546)
  --b URL              endpoint B (e.g. this service: http://127.0.0.1:5642/rpc or ws://127.0.0.1:5642/rpc)
  --psql CMD           psql command line for the mirror node database (values are sampled from it)
  --seed S             generator seed (default 1): the same seed on the same data gives the same calls
  --n N                number of cases (default 300)
  --only LIST          kinds, comma-separated: ${KINDS.join(', ')}, and with ws:// ${WS_KINDS.join(', ')}
  --timeout MS         per request (default 40000; the relay gives up on the mirror node after 30 s)
  --concurrency C      cases in flight (default 2)
  --out FILE           every case that differs, with both answers, and the summary, as JSON
A difference kept on purpose (kept.ts: A is the relay, B this endpoint) is counted apart and fails nothing.
Exit status: 0 when every case is identical or differs only as kept, 1 when some differ, 2 on usage errors.`;

const OPTIONS = {
  a: { type: 'string' }, b: { type: 'string' }, psql: { type: 'string' }, seed: { type: 'string' }, n: { type: 'string' },
  only: { type: 'string' }, timeout: { type: 'string' }, concurrency: { type: 'string' }, out: { type: 'string' },
} satisfies OptionsConfig;

function options({ values, fail }: ScenarioArgs<typeof OPTIONS>) {
  if (!values.a || !values.b || !values.psql) return fail('--a, --b and --psql are required');
  const num = numberOptions(fail);
  const only = values.only?.split(',').map((k) => k.trim());
  const a = loopbackUrl(fail, 'a', values.a, 'http', undefined, 'ws');
  const b = loopbackUrl(fail, 'b', values.b, 'http', undefined, 'ws');
  const ws = a.protocol === 'ws:';
  if (ws !== (b.protocol === 'ws:')) fail('--a and --b must both be http:// or both ws://');
  for (const k of only ?? []) if (![...KINDS, ...(ws ? WS_KINDS : [])].includes(k)) fail(`--only: unknown kind ${k}`);
  return {
    a: a.href,
    b: b.href,
    ws,
    psql: values.psql,
    seed: num.integerAtLeast('seed', values.seed, 1, 0),
    n: num.positiveInteger('n', values.n, 300),
    only,
    timeout: num.positiveInteger('timeout', values.timeout, 40_000),
    concurrency: num.positiveInteger('concurrency', values.concurrency, 2),
    out: values.out,
  };
}

interface Outcome {
  index: number;
  kind: string;
  shape: string;
  steps: { request: unknown; a: Reply; b: Reply; result: StepResult }[];
}

/** Sends one step's body to one side: a POST, or a message on the case's WebSocket. */
type Send = (body: unknown, requestId: string) => Promise<Reply>;

/** Runs a case's steps in turn, each to A and B at once, every later step built from its own side's replies. */
async function runCase(c: Case, index: number, a: string, b: string, timeout: number, ws: boolean): Promise<Outcome> {
  if (!ws) return runSteps(c, index, (body, id) => post(a, body, timeout, id), (body, id) => post(b, body, timeout, id), false);
  const requestId = `rpcdiff-${index}`;
  const [sideA, sideB] = await Promise.all([openSide(a, requestId), openSide(b, requestId)]);
  try {
    // the ws-server's request ids are its own: compared as <id>
    return await runSteps(c, index, async (body) => maskRequestIds(await sideA.send(body, timeout)), async (body) => maskRequestIds(await sideB.send(body, timeout)), true);
  } finally {
    sideA.close();
    sideB.close();
  }
}

/** The verdict on one step: a difference kept on purpose (kept.ts) is named as such. */
function judge(request: unknown, a: Reply, b: Reply, filterId: boolean, ws: boolean, earlier: readonly string[]): StepResult {
  const result = compareReplies(a, b, filterId);
  if (result.verdict === 'same' || result.verdict === 'same-masked') return result;
  const kept = keptDifference(request, a, b, ws, earlier);
  return kept ? { verdict: 'kept', detail: kept } : result;
}

async function runSteps(c: Case, index: number, sendA: Send, sendB: Send, ws: boolean): Promise<Outcome> {
  const repliesA: Reply[] = [];
  const repliesB: Reply[] = [];
  const steps: Outcome['steps'] = [];
  for (const [i, step] of c.steps.entries()) {
    const bodyA = step.body(repliesA);
    const bodyB = step.body(repliesB);
    const requestId = `rpcdiff-${index}-${i}`;
    const [ra, rb] = await Promise.all([sendA(bodyA, requestId), sendB(bodyB, requestId)]);
    repliesA.push(ra);
    repliesB.push(rb);
    steps.push({ request: bodyA, a: ra, b: rb, result: judge(bodyA, ra, rb, step.filterId === true, ws, steps.flatMap((st) => (st.result.verdict === 'kept' ? [st.result.detail!] : []))) });
  }
  return { index, kind: c.kind, shape: c.shape, steps };
}

/** Identical but for differences kept on purpose. */
const agreed = (o: Outcome) => o.steps.every((s) => s.result.verdict === 'same' || s.result.verdict === 'same-masked' || s.result.verdict === 'kept');

function summarize(outcomes: Outcome[]) {
  const byKind: Record<string, Record<string, number>> = {};
  for (const o of outcomes) {
    const row = (byKind[o.kind] ??= { cases: 0, agreed: 0 });
    row.cases!++;
    if (agreed(o)) row.agreed!++;
    for (const s of o.steps) row[s.result.verdict] = (row[s.result.verdict] ?? 0) + 1;
  }
  return byKind;
}

/** Bytes of an answer's text kept in --out: a whole-chain answer can be hundreds of MB. */
const KEPT_TEXT = 200_000;

/** A reply as written to --out: its text (cut at KEPT_TEXT, with its full length), without the parsed copy. */
const trimmed = ({ json: _json, text, ...rest }: Reply) =>
  text.length > KEPT_TEXT ? { ...rest, bytes: text.length, text: `${text.slice(0, KEPT_TEXT)}...` } : { ...rest, bytes: text.length, text };

const brief = (v: unknown, max = 300) => {
  const s = typeof v === 'string' ? v : JSON.stringify(v);
  return s === undefined ? 'undefined' : s.length > max ? `${s.slice(0, max - 3)}...` : s;
};

async function main(args: ScenarioArgs<typeof OPTIONS>): Promise<void> {
  const o = options(args);
  const t0 = Date.now();
  const pool = samplePool(o.psql, o.seed);
  console.log(`pool: blocks ${pool.firstBlock}-${pool.lastBlock}, ${pool.logs.length} sampled logs, ${pool.denseAddresses.length} dense / ${pool.rareAddresses.length} rare / ${pool.absentAddresses.length} absent addresses (${Date.now() - t0} ms)`);
  const picker = new Picker(random(o.seed), pool);
  const cases: Case[] = [];
  for (let i = 1; cases.length < o.n; i++) {
    // over WebSockets one case in five is of a kind only they have (subscribeCases.ts)
    const c = o.ws && picker.chance(0.2) ? wsOnlyCase(picker, i) : generateCase(picker, i);
    if (!o.only || o.only.includes(c.kind)) cases.push(c);
  }
  const outcomes: Outcome[] = [];
  let next = 0;
  const worker = async () => {
    while (next < cases.length) {
      const i = next++;
      outcomes.push(await runCase(cases[i]!, i + 1, o.a, o.b, o.timeout, o.ws));
      if (outcomes.length % 25 === 0) process.stderr.write(`${outcomes.length}/${cases.length} cases, ${outcomes.filter((x) => !agreed(x)).length} differ\n`);
    }
  };
  await Promise.all(Array.from({ length: o.concurrency }, worker));
  outcomes.sort((x, y) => x.index - y.index);
  const summary = summarize(outcomes);
  const differing = outcomes.filter((x) => !agreed(x));
  const keptBy = new Map<string, number>();
  for (const x of outcomes) for (const s of x.steps) if (s.result.verdict === 'kept') keptBy.set(s.result.detail!, (keptBy.get(s.result.detail!) ?? 0) + 1);
  for (const x of differing) {
    console.log(`\n#${x.index} ${x.kind} ${x.shape}`);
    for (const s of x.steps) {
      if (s.result.verdict === 'same' || s.result.verdict === 'same-masked' || s.result.verdict === 'kept') continue;
      console.log(`  ${s.result.verdict}: ${s.result.detail ?? ''}\n    request: ${brief(s.request)}\n    A (${Math.round(s.a.ms)} ms): ${brief(s.a.text)}\n    B (${Math.round(s.b.ms)} ms): ${brief(s.b.text)}`);
    }
  }
  const keptCases = outcomes.filter((x) => !differing.includes(x) && x.steps.some((s) => s.result.verdict === 'kept')).length;
  console.log(`\nseed ${o.seed}, ${outcomes.length} cases, ${outcomes.length - differing.length - keptCases} identical, ${keptCases} with a kept difference, ${differing.length} differ (${Math.round((Date.now() - t0) / 1000)} s)`);
  if (keptBy.size > 0) console.log(`kept differences (docs/compatibility.md): ${[...keptBy].map(([k, n]) => `${k} ${n}`).join(', ')}`);
  console.table(summary);
  if (o.out) {
    const cases = differing.map((x) => ({ ...x, steps: x.steps.map((st) => ({ ...st, a: trimmed(st.a), b: trimmed(st.b) })) }));
    writeFileSync(o.out, `${JSON.stringify({ options: { ...o, psql: undefined }, pool, summary, differing: cases }, null, 1)}\n`);
    console.log(`written: ${o.out}`);
  }
  process.exitCode = differing.length === 0 ? 0 : 1;
}

export default defineScenario({ usage: USAGE, options: OPTIONS, run: main });
