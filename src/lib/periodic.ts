/**
 * Runs `task` every `everyMs` until the returned function is called, never two runs at once (a run
 * that outlasts the interval skips the next tick); a failed run is reported and the next tick tries
 * again. The timer does not keep the process alive.
 */
export function runPeriodically(everyMs: number, task: () => Promise<unknown>, failed: (err: unknown) => void): () => void {
  let running = false;
  const timer = setInterval(() => {
    if (running) return;
    running = true;
    task()
      .catch(failed)
      .finally(() => (running = false));
  }, everyMs);
  timer.unref();
  return () => clearInterval(timer);
}
