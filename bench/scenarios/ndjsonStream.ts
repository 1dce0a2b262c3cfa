/**
 * NDJSON throughput and memory (issue 27): every log, then every result, of the database in one
 * NDJSON answer each (the server needs additions.ndjson.maxItems above their count), counted as they
 * arrive; items per second, time to the first byte, and the server's RSS sampled every second.
 *
 *   npm run bench -- ndjson-stream --service http://127.0.0.1:5551 --pid <server pid> [--seconds 0]
 *
 * --seconds N stops each stream after N seconds (0: read each to its end).
 */
import type { Fail } from '../lib/cli.ts';
import { sampleTree } from '../lib/proc.ts';
import { type OptionsConfig, type ScenarioArgs, defineScenario } from '../lib/scenario.ts';
import { SECONDS, withDefault } from '../lib/options.ts';

const USAGE = `  --service URL        the service, with additions.ndjson.maxItems above the row counts (required)
  --pid N              server process whose RSS is sampled every second
  --seconds N          stop each stream after N seconds; 0: read each to its end          (default 0)`;

const OPTIONS = {
  service: { type: 'string' },
  pid: { type: 'string' },
  ...withDefault(SECONDS, '0'),
} satisfies OptionsConfig;

async function main(args: ScenarioArgs<typeof OPTIONS>): Promise<void> {
  const { values } = args;
  const fail: Fail = args.fail;
  if (!values.service) fail('--service is required');
  const pid = values.pid ? Number(values.pid) : undefined;
  const seconds = Number(values.seconds);
  const NEWLINE = 10;

  for (const path of ['/api/v1/contracts/results/logs?order=asc', '/api/v1/contracts/results?order=asc']) {
    const rss: number[] = [];
    /** The server's RSS at each whole million items streamed (the first sample past it). */
    const byMillion: string[] = [];
    let lines = 0;
    const sampler = pid
      ? setInterval(() => {
          const mb = (sampleTree(pid)?.rssKb ?? 0) / 1e3;
          rss.push(mb);
          if (lines >= (byMillion.length + 1) * 1e6) byMillion.push(`${Math.floor(lines / 1e6)}M ${mb.toFixed(0)}`);
        }, 1000)
      : undefined;
    const started = performance.now();
    // always a signal: without one, Node 20's fetch read these answers at a fifth of the rate (3,800
    // against 18,000 items/s, measured with the same loop)
    const signal = AbortSignal.timeout(seconds > 0 ? seconds * 1000 : 2 ** 31 - 1);
    const res = await fetch(values.service + path, { headers: { accept: 'application/x-ndjson' }, signal });
    let bytes = 0;
    let firstByteMs: number | undefined;
    let stopped = false;
    try {
      for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
        firstByteMs ??= performance.now() - started;
        bytes += chunk.length;
        for (let at = chunk.indexOf(NEWLINE); at >= 0; at = chunk.indexOf(NEWLINE, at + 1)) lines++;
      }
    } catch (err) {
      if (!signal.aborted) throw err;
      stopped = true;
    }
    const elapsed = (performance.now() - started) / 1000;
    if (sampler) clearInterval(sampler);
    const items = stopped ? lines : lines - 1; // the last line of a whole answer is its status line
    const memory = rss.length
      ? `; server RSS ${Math.min(...rss).toFixed(0)}-${Math.max(...rss).toFixed(0)} MB${byMillion.length ? ` (MB at each million items: ${byMillion.join(', ')})` : ''}`
      : '';
    process.stdout.write(
      `${path}: ${items} items${stopped ? ` (stopped after ${seconds} s)` : ''}, ${(bytes / 1e9).toFixed(2)} GB in ${elapsed.toFixed(1)} s: ` +
        `${(items / elapsed).toFixed(0)} items/s, first byte ${firstByteMs?.toFixed(0)} ms${memory}\n`,
    );
  }
}

export default defineScenario({ usage: USAGE, options: OPTIONS, run: main });
