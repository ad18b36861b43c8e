/**
 * A call asked for by a burst of events, made at most once per `ms`: the first at once (on the next
 * task), the others of the same interval folded into one at its end. An import sends thousands of
 * customer events a second; each refreshing the list would flood the server and the browser.
 */
export function coalesced(run: () => void, ms: number): { request: () => void; cancel: () => void } {
  let timer: ReturnType<typeof setTimeout> | null = null;
  let last = -Infinity;
  return {
    request() {
      if (timer !== null) return;
      timer = setTimeout(
        () => {
          timer = null;
          last = Date.now();
          run();
        },
        Math.max(0, last + ms - Date.now()),
      );
    },
    cancel() {
      if (timer !== null) clearTimeout(timer);
      timer = null;
    },
  };
}
