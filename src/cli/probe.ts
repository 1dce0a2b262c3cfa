import type { Config } from '../config/config.ts';

/** How long a probe waits for the service's answer before it counts as a failure. */
const PROBE_TIMEOUT_MS = 4000;

export const PROBE_KINDS = ['readiness', 'liveness'] as const;
export type ProbeKind = (typeof PROBE_KINDS)[number];

/**
 * `probe readiness|liveness`: asks the service running on this host (the configured port, on the
 * loopback address) for its health probe and exits 0 when it answers 200, 1 otherwise. It is the
 * container image's HEALTHCHECK, which has no curl: it reads the port from the same configuration
 * file and variables as the service, so a port moved by HIERO_MIRROR_REST_PORT is followed.
 */
export async function runProbe(config: Config, kind: ProbeKind): Promise<void> {
  const url = `http://127.0.0.1:${config.port}/health/${kind}`;
  try {
    const response = await fetch(url, { signal: AbortSignal.timeout(PROBE_TIMEOUT_MS) });
    const body = (await response.text()).trim();
    process.stdout.write(`${kind}: ${response.status} ${body}\n`);
    process.exit(response.status === 200 ? 0 : 1);
  } catch (err) {
    process.stdout.write(`${kind}: no answer from ${url} (${(err as Error).message})\n`);
    process.exit(1);
  }
}
