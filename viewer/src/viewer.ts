/**
 * The share-link viewer's script (docs/links.md, "The viewer" and "Beacons"): turns pages (keys,
 * buttons, scrolling), measures how long each page is read — visible and not idle — and reports it
 * with beacons; sends the form. Plain TypeScript, no dependency, one IIFE (scripts/build-server.js).
 * The page works without it: the images and the form are plain HTML.
 */

interface Config {
  /** The view token; null when a member of the project previews the link (nothing is recorded). */
  token: string | null;
  pages: number;
  events: string;
  form: string;
  start: number;
  /** A web page link without embedding: opened once the view is recorded. */
  redirect?: string;
  /** A watermarked document: veiled while the window is not the reader's, no saving its images by hand. */
  guard?: boolean;
  /** A data room's document: its file id, which every beacon names (the room's own page has none). */
  doc?: string;
}

interface OpenAnswer {
  status: number;
  data?: { counted: boolean; token?: string; seq?: number; dwell?: Record<string, number> };
}

/** No input or scroll for this long: the time after it is not reading. */
const IDLE_MS = 60_000;
const HEARTBEAT_MS = 10_000;
/** How long after a page asked for (a key, a button) the scroll it causes is the viewer's, not the reader's. */
const PROGRAMMATIC_SCROLL_MS = 1000;
/** A page turn is reported once the page has stayed current this long (fast scrolling reports nothing). */
const TURN_REPORT_MS = 1000;

(() => {
  const data = document.getElementById('rapport-viewer');
  if (!data) return;
  let config: Config;
  try {
    config = JSON.parse(data.textContent ?? '') as Config;
  } catch {
    return;
  }

  const now = () => performance.now();
  const pages = Math.max(1, config.pages);
  let current = Math.min(Math.max(1, config.start || 1), pages);
  let token = config.token;
  let counted = token !== null;
  let opened = false;
  let seq = 0;
  const dwell: Record<number, number> = {};
  let visible = document.visibilityState === 'visible';
  let lastInput = now();
  let lastMark = now();

  /** Adds the time since the last mark to the current page, if it was read: visible, and within a minute of input. */
  const account = (): void => {
    const t = now();
    if (visible && opened) {
      const until = Math.min(t, lastInput + IDLE_MS);
      if (until > lastMark) dwell[current] = (dwell[current] ?? 0) + (until - lastMark);
    }
    lastMark = t;
  };

  const body = (type: string): string => {
    account();
    seq += 1;
    const d: Record<string, number> = {};
    for (const k of Object.keys(dwell)) d[k] = Math.round(dwell[Number(k)] ?? 0);
    return JSON.stringify({ type, seq, token, page: current, dwell: d, doc: config.doc });
  };

  /** A beacon; the last ones of a page go with sendBeacon (it outlives the page), fetch with keepalive otherwise. */
  const send = (type: string, last = false): void => {
    if (token === null || !counted || !opened) return;
    const text = body(type);
    try {
      if (last && typeof navigator.sendBeacon === 'function' && navigator.sendBeacon(config.events, text)) return;
      void fetch(config.events, {
        method: 'POST',
        body: text,
        headers: { 'Content-Type': 'text/plain' },
        keepalive: true,
        credentials: 'same-origin',
      }).catch(() => undefined);
    } catch {
      // A beacon never breaks the page.
    }
  };

  const open = async (): Promise<void> => {
    if (opened || token === null) return;
    opened = true;
    lastMark = now();
    lastInput = now();
    seq += 1;
    try {
      const res = await fetch(config.events, {
        method: 'POST',
        body: JSON.stringify({ type: 'open', seq, token, page: current, dwell: {}, doc: config.doc }),
        headers: { 'Content-Type': 'text/plain' },
        credentials: 'same-origin',
      });
      const answer = (await res.json()) as OpenAnswer;
      const d = answer.data;
      if (answer.status === 1 && d) {
        if (!d.counted) counted = false;
        else {
          // A reload within half an hour continues the view: its token, its sequence and what was read so far.
          if (d.token) token = d.token;
          if (typeof d.seq === 'number' && d.seq > seq) seq = d.seq;
          for (const [k, ms] of Object.entries(d.dwell ?? {})) dwell[Number(k)] = (dwell[Number(k)] ?? 0) + ms;
        }
      } else counted = false;
    } catch {
      counted = false;
    }
    if (config.redirect) location.replace(config.redirect);
  };

  // ---- Pages: the counter, ?p=, keys and buttons, and which page is being read. ----
  const sections = Array.from(document.querySelectorAll<HTMLElement>('.page[data-page]'));
  const counter = document.getElementById('current');
  const prev = document.getElementById('prev') as HTMLButtonElement | null;
  const next = document.getElementById('next') as HTMLButtonElement | null;
  let turnTimer: number | undefined;

  const show = (n: number): void => {
    if (n === current) return;
    account();
    current = n;
    if (counter) counter.textContent = String(n);
    if (prev) prev.disabled = n <= 1;
    if (next) next.disabled = n >= pages;
    try {
      const url = new URL(location.href);
      url.searchParams.set('p', String(n));
      history.replaceState(history.state, '', url.href);
    } catch {
      // Not worth breaking the page over.
    }
    window.clearTimeout(turnTimer);
    turnTimer = window.setTimeout(() => send('page'), TURN_REPORT_MS);
  };

  const ratios = new Map<number, number>();
  // While the viewer scrolls to a page it was asked for, what comes into view does not choose the
  // page: near the end of a short document the page asked for may never reach the top.
  let programmatic = false;
  let programmaticTimer: number | undefined;

  const goTo = (n: number): void => {
    const target = Math.min(Math.max(1, n), pages);
    const section = sections[target - 1];
    input();
    show(target);
    programmatic = true;
    window.clearTimeout(programmaticTimer);
    programmaticTimer = window.setTimeout(() => (programmatic = false), PROGRAMMATIC_SCROLL_MS);
    section?.scrollIntoView({ block: 'start' });
  };
  if ('IntersectionObserver' in window && sections.length > 0) {
    const observer = new IntersectionObserver(
      (entries) => {
        for (const e of entries) ratios.set(Number((e.target as HTMLElement).dataset.page), e.isIntersecting ? e.intersectionRatio : 0);
        if (programmatic) return;
        // The topmost page mostly in view; at the very end of the document, the last one in view.
        const inView = [...ratios].filter(([, r]) => r >= 0.6).map(([n]) => n);
        const candidates = inView.length > 0 ? inView : [...ratios].filter(([, r]) => r > 0).map(([n]) => n);
        if (candidates.length === 0) return;
        // Scrolled to the end of a document taller than the screen: the last page in view. A document
        // that fits the screen (a short deck on a phone) has no end to scroll to: the topmost page.
        const scrollable = document.documentElement.scrollHeight > window.innerHeight + 2;
        const atEnd = scrollable && window.scrollY > 0 && window.innerHeight + window.scrollY >= document.documentElement.scrollHeight - 2;
        show(atEnd ? Math.max(...candidates) : Math.min(...candidates));
      },
      { threshold: [0, 0.25, 0.6, 1] },
    );
    for (const s of sections) observer.observe(s);
  }

  const input = (): void => {
    account();
    lastInput = now();
  };

  document.addEventListener(
    'keydown',
    (e) => {
      const target = e.target as HTMLElement | null;
      if (target && /^(INPUT|TEXTAREA|SELECT)$/.test(target.tagName)) return input();
      if (e.key === 'ArrowRight' || e.key === 'PageDown') {
        e.preventDefault();
        goTo(current + 1);
      } else if (e.key === 'ArrowLeft' || e.key === 'PageUp') {
        e.preventDefault();
        goTo(current - 1);
      } else input();
    },
    { passive: false },
  );
  prev?.addEventListener('click', () => goTo(current - 1));
  next?.addEventListener('click', () => goTo(current + 1));
  if (prev) prev.disabled = current <= 1;
  if (next) next.disabled = current >= pages;
  for (const type of ['scroll', 'pointerdown', 'pointermove', 'touchstart', 'wheel']) {
    window.addEventListener(type, input, { passive: true });
  }
  // The reader's own scrolling chooses the page again at once.
  for (const type of ['touchstart', 'wheel']) {
    window.addEventListener(type, () => (programmatic = false), { passive: true });
  }

  // ---- Visibility and leaving: only visible time counts; the last beacons outlive the page. ----
  // Set once the page is being left: the hidden state that follows is part of leaving, not a hide.
  let left = false;
  document.addEventListener('visibilitychange', () => {
    account();
    visible = document.visibilityState === 'visible';
    if (!visible) {
      if (!left) send('hide', true);
    } else {
      lastMark = now();
      lastInput = now();
      void open();
    }
  });
  window.addEventListener('pagehide', () => {
    if (!left) send('leave', true);
    left = true;
  });
  // Within a data room (links marked data-room: a document, the way back), the page's leave is
  // sent and answered before the next page loads, whose open then goes on with the same view.
  document.addEventListener('click', (e) => {
    const a = (e.target as Element | null)?.closest?.('a[data-room]') as HTMLAnchorElement | null;
    if (!a || e.defaultPrevented || e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
    if (token === null || !counted || !opened || left) return;
    e.preventDefault();
    left = true;
    const go = () => location.assign(a.href);
    window.setTimeout(go, 1500);
    fetch(config.events, {
      method: 'POST',
      body: body('leave'),
      headers: { 'Content-Type': 'text/plain' },
      keepalive: true,
      credentials: 'same-origin',
    }).then(go, go);
  });
  window.addEventListener('pageshow', (e) => {
    // Back from the back-forward cache: the view goes on (its next beacon reopens it).
    if ((e as PageTransitionEvent).persisted) {
      left = false;
      lastMark = now();
      lastInput = now();
    }
  });
  window.setInterval(() => {
    if (visible && now() - lastInput < IDLE_MS) send('hb');
  }, HEARTBEAT_MS);

  // ---- The form: sent with the view's token, answered in place. ----
  const form = document.getElementById('form-fields') as HTMLFormElement | null;
  form?.addEventListener('submit', (e) => {
    e.preventDefault();
    const fields: Record<string, string> = {};
    new FormData(form).forEach((v, k) => {
      if (typeof v === 'string') fields[k] = v;
    });
    if (token !== null) fields.token = token;
    const error = document.getElementById('form-error');
    void fetch(config.form, {
      method: 'POST',
      body: JSON.stringify(fields),
      headers: { 'Content-Type': 'application/json' },
      credentials: 'same-origin',
    })
      .then(async (res) => {
        const answer = (await res.json()) as { status: number; msg?: string };
        if (answer.status === 1) {
          form.hidden = true;
          const sent = document.getElementById('form-sent');
          if (sent) sent.hidden = false;
        } else if (error) {
          error.textContent = answer.msg ?? 'The form could not be sent.';
          error.hidden = false;
        }
      })
      .catch(() => {
        if (error) {
          error.textContent = 'The form could not be sent. Try again.';
          error.hidden = false;
        }
      });
  });

  // ---- A watermarked document's deterrents (docs/links.md): they slow copying, they cannot stop a screenshot. ----
  if (config.guard) {
    // Blurred while the window has no focus or the page is hidden (a screenshot tool, a task switcher).
    const veil = (on: boolean) => document.body.classList.toggle('veiled', on);
    window.addEventListener('blur', () => veil(true));
    window.addEventListener('focus', () => veil(document.visibilityState !== 'visible'));
    document.addEventListener('visibilitychange', () => veil(document.visibilityState !== 'visible' || !document.hasFocus()));
    veil(!visible);
    // A page the server was too busy to draw (503) is asked for again a little later, twice at most;
    // one that failed before this script ran (it is deferred) too.
    for (const img of Array.from(document.querySelectorAll<HTMLImageElement>('.deck img'))) {
      let tries = 0;
      const retry = (): void => {
        tries += 1;
        // A new address (`&r=`): the browser does not ask again for one that failed.
        const again = (list: string) => list.replace(/&r=\d/g, '').replace(/\?\S*/g, (query) => `${query}&r=${tries}`);
        if (tries <= 2) window.setTimeout(() => ((img.srcset = again(img.srcset)), (img.src = again(img.src))), 2000 * tries);
      };
      img.addEventListener('error', retry);
      if (img.complete && img.naturalWidth === 0) retry();
    }
    // No context menu (Save image as…) and no dragging an image out of the pages.
    for (const type of ['contextmenu', 'dragstart']) {
      document.addEventListener(type, (e) => {
        if ((e.target as Element | null)?.closest?.('.deck')) e.preventDefault();
      });
    }
  }

  // ---- Start: at ?p= (the server put that page's number in the counter), and the view opens once visible. ----
  if (current > 1) {
    programmatic = true;
    sections[current - 1]?.scrollIntoView({ block: 'start' });
    window.setTimeout(() => (programmatic = false), 300);
  }
  if (visible) void open();
})();
