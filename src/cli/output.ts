/**
 * What the command line prints and how it ends: one `error:` line on stderr and an exit code for
 * every failure, progress notes on stderr, results on stdout.
 */

/** Exit code 1: the environment is wrong (port, data directory, database). 2: the command line is. */
export function fail(message: string, code = 1): never {
  process.stderr.write(`error: ${message}\n`);
  process.exit(code);
}

export const status = (message: string): void => {
  process.stderr.write(`${message}\n`);
};

export const formatCount = (n: number): string => n.toLocaleString('en-US');

/**
 * SIGINT/SIGTERM while the command prepares (opens, migrates, seeds): remembered and acted upon at
 * the next safe point, or passed to `onSignal` once the command has registered one. A second signal
 * a second or more later exits at once. One within that second is the same request delivered twice
 * (Ctrl-C reaches both `npm start` and this process, and npm passes its copy on), and so is any
 * repeat in a cluster worker, whose primary passes on the signals it gets.
 */
export const signals = {
  received: null as NodeJS.Signals | null,
  receivedAt: 0,
  onSignal: null as ((signal: NodeJS.Signals) => void) | null,
  install(options: { repeatExits: boolean } = { repeatExits: true }): void {
    const handler = (signal: NodeJS.Signals) => {
      if (signals.received) {
        if (!options.repeatExits || performance.now() - signals.receivedAt < 1000) return;
        status(`${signal} again: exiting at once`);
        process.exit(130);
      }
      signals.received = signal;
      signals.receivedAt = performance.now();
      if (signals.onSignal) signals.onSignal(signal);
      else status(`${signal}: stopping once the current database step is done (send it again to exit at once)`);
    };
    process.on('SIGINT', handler);
    process.on('SIGTERM', handler);
  },
  /** The conventional exit code of the signal received: 130 for SIGINT, 143 for SIGTERM. */
  exitCode: (): number => (signals.received === 'SIGINT' ? 130 : 143),
};
