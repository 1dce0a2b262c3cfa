/**
 * The options of a scenario that drives one server: where it listens (--base, loopback only), and
 * either its pid to sample (--pid) or a command that starts it (--start, with --start-timeout and
 * --server-log). One definition for run and hostile, parsed by bench/lib/scenario.ts.
 */
import { type Fail, loopbackUrl, numberOptions } from './cli.ts';
import type { OptionsConfig, Values } from './scenario.ts';

export const SERVER_OPTIONS = {
  base: { type: 'string', default: 'http://127.0.0.1:5551' },
  pid: { type: 'string' },
  start: { type: 'string' },
  'start-timeout': { type: 'string' },
  'server-log': { type: 'string' },
} satisfies OptionsConfig;

export const SERVER_USAGE = `  --base URL           server base URL, loopback only              (default http://127.0.0.1:5551)
  --pid N              server process to sample (CPU incl. children, RSS summed over its tree)
  --start "CMD"        start the server with sh -c CMD, wait until it answers, SIGTERM it at the end
  --start-timeout S    how long to wait for a started server to answer                 (default 60)
  --server-log FILE    output of the started server  (default $TMPDIR/cqs-<scenario>-server-<pid>.log)`;

export interface ServerTarget {
  base: URL;
  pid?: number;
  start?: string;
  /** seconds */
  startTimeout: number;
  serverLog?: string;
}

export function serverTarget(values: Values<typeof SERVER_OPTIONS>, fail: Fail): ServerTarget {
  const { integerAtLeast, positive } = numberOptions(fail);
  const base = loopbackUrl(fail, 'base', values.base, 'http');
  if (values.pid !== undefined && values.start !== undefined) fail('--pid and --start exclude each other');
  return {
    base,
    ...(values.pid !== undefined ? { pid: integerAtLeast('pid', values.pid, 0) } : {}),
    ...(values.start !== undefined ? { start: values.start } : {}),
    startTimeout: positive('start-timeout', values['start-timeout'], 60),
    ...(values['server-log'] !== undefined ? { serverLog: values['server-log'] } : {}),
  };
}
