import { monitorEventLoopDelay } from 'node:perf_hooks';

/** How late a load generator's own event loop ran, in ms (p50, p99 and the worst). */
export interface LoopDelay {
  p50: number;
  p99: number;
  max: number;
}

/**
 * Starts watching this process's event loop; the function returned stops and reports. The figure is
 * a timer's lateness: Node's monitorEventLoopDelay records each period of its timer as it ran, so the
 * period itself is taken off (an idle loop reports about 0, not the period). A response that arrives
 * while the loop is busy is timed when the loop gets to it, so this lateness is in every latency the
 * generator reports; it weighs most on the fastest server, whose latencies are a few milliseconds.
 */
export function loopDelayMonitor(periodMs = 1): () => LoopDelay {
  const histogram = monitorEventLoopDelay({ resolution: periodMs });
  histogram.enable();
  const late = (ns: number) => Math.round(Math.max(0, ns / 1e6 - periodMs) * 100) / 100;
  return () => {
    histogram.disable();
    return { p50: late(histogram.percentile(50)), p99: late(histogram.percentile(99)), max: late(histogram.max) };
  };
}
