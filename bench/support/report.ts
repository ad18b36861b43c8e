/** What every bench script does around its measurement: the peak RSS sampler, the printed figures, the exit on failure. */
import os from 'node:os';

export interface PeakSampler {
  /** The highest reading since the start or the last `reset()`. */
  peak(): number;
  /** Returns the peak so far and starts a new one from 0. */
  reset(): number;
  /** Stops sampling (the peak is kept). */
  stop(): void;
}

/** Reads `read()` (a resident set in bytes) every 100 ms and keeps the highest reading. */
export function samplePeak(read: () => number): PeakSampler {
  let peak = 0;
  const timer = setInterval(() => (peak = Math.max(peak, read())), 100);
  return {
    peak: () => peak,
    reset: () => {
      const p = peak;
      peak = 0;
      return p;
    },
    stop: () => clearInterval(timer),
  };
}

/**
 * Prints a script's figures on stdout as indented JSON, after the database and the machine they were
 * measured on: what `npm run bench` reads from the script's output.
 */
export function printFigures(database: string, figures: Record<string, unknown>): void {
  console.log(JSON.stringify({ database, machine: { cpus: os.cpus().length, node: process.version }, ...figures }, null, 2));
}

/** Runs a script's `main`; on failure prints the error and exits 1. */
export function runMain(main: () => Promise<void>): void {
  main().catch((err: unknown) => {
    console.error(err);
    process.exit(1);
  });
}
