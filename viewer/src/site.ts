/**
 * The site snippet (docs/site-tracking.md), served as /t.js and included by a customer's site:
 *
 *   <script async src="{PUBLIC_BASE_URL}/t.js" data-key="{siteKey}"></script>
 *
 * It records the visit (start, referrer, search keyword), page views and page leave with visible time,
 * and the key behaviours the overview counts (form submit: the form's id, never its values; file
 * download; media play; contact service), in batches sent to /t/collect, the last with sendBeacon on
 * pagehide. `rapport('identify', {phone|email|customerId, hash})`, `rapport('track', action, data)`
 * and `rapport('consent')` are its API; calls made before it loads wait in `rapport.q`.
 *
 * A landing URL's `rapport_click` (a tracked e-mail click) and `rapport_lv` (a shared link's visitor)
 * are sent to the server, which may identify the visitor by them, and removed from the address bar.
 *
 * data- attributes: `data-storage` `cookie` (default) or `local` (localStorage) keeps the visitor id;
 * `data-consent="required"` sends and stores nothing before `rapport('consent')`;
 * `data-privacy-signals="ignore"` records even when the browser sends Global Privacy Control or
 * Do-Not-Track (honoured by default).
 */

type Api = ((command: string, ...args: unknown[]) => void) & { q?: ArrayLike<unknown>[]; loaded?: boolean };

interface Item {
  t: string;
  [k: string]: unknown;
}

((): void => {
  const w = window as unknown as { rapport?: Api; doNotTrack?: string };
  if (w.rapport?.loaded) return;
  const me =
    (document.currentScript as HTMLScriptElement | null) ?? document.querySelector<HTMLScriptElement>('script[data-key][src*="/t.js"]');
  const key = me?.getAttribute('data-key');
  if (!me || !key) return;
  const attr = (name: string): string => me.getAttribute(`data-${name}`) ?? '';
  const endpoint = new URL(`/t/collect?k=${encodeURIComponent(key)}`, me.src).href;
  const nav = navigator as Navigator & { globalPrivacyControl?: boolean };
  const declined =
    attr('privacy-signals') !== 'ignore' && (nav.globalPrivacyControl === true || nav.doNotTrack === '1' || w.doNotTrack === '1');
  const useCookie = attr('storage') !== 'local';
  let consented = attr('consent') !== 'required';

  const IDLE_MS = 30 * 60 * 1000;
  const VISITOR = '_rapport_vid';
  const VISIT = '_rapport_visit';
  const HANDOFF = '_rapport_lv';
  const FILE_RE =
    /\.(pdf|zip|rar|7z|gz|tgz|docx?|xlsx?|pptx?|csv|txt|rtf|odt|ods|odp|key|pages|numbers|dmg|exe|msi|apk|ipa|mp3|mp4|mov|avi|epub)$/i;

  const randomId = (): string => {
    const bytes = new Uint8Array(16);
    crypto.getRandomValues(bytes);
    let s = '';
    for (let i = 0; i < bytes.length; i += 1) s += String.fromCharCode(bytes[i] as number);
    return btoa(s).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
  };

  // ---- First-party storage: a cookie on the site's own host, or localStorage. ----
  const read = (name: string): string | null => {
    try {
      if (!useCookie) return localStorage.getItem(name);
      const m = document.cookie.match(new RegExp(`(?:^|; )${name}=([^;]*)`));
      return m ? decodeURIComponent(m[1] as string) : null;
    } catch {
      return null;
    }
  };
  const write = (name: string, value: string, maxAge: number): void => {
    try {
      if (!useCookie) localStorage.setItem(name, value);
      else
        document.cookie = `${name}=${encodeURIComponent(value)}; path=/; max-age=${maxAge}; SameSite=Lax${location.protocol === 'https:' ? '; Secure' : ''}`;
    } catch {
      // Storage refused (private mode, a blocked cookie): the id lives for this page only.
    }
  };

  /** A URL as it may leave the page: no query string but utm_*, no fragment. */
  const clean = (href: string): string => {
    try {
      const u = new URL(href, location.href);
      const kept: string[] = [];
      u.searchParams.forEach((v, k) => {
        if (/^utm_/i.test(k)) kept.push(`${encodeURIComponent(k)}=${encodeURIComponent(v)}`);
      });
      return u.origin + u.pathname + (kept.length > 0 ? `?${kept.join('&')}` : '');
    } catch {
      return '';
    }
  };

  /** The search words in a search engine's referrer (or the landing URL's utm_term). */
  const keywordOf = (ref: string): string => {
    try {
      const params = new URL(ref).searchParams;
      for (const p of ['q', 'wd', 'word', 'query', 'p', 'text', 'keyword']) {
        const v = params.get(p);
        if (v) return v.slice(0, 255);
      }
    } catch {
      // No referrer, or not a URL.
    }
    return new URLSearchParams(location.search).get('utm_term') ?? '';
  };

  // ---- The visitor, the visit, the page. ----
  let visitorId = '';
  let visitId = '';
  const page = { id: randomId(), since: Date.now(), url: '', title: '', visibleMs: 0, shownAt: 0 };
  const queue: Item[] = [];
  let click: string | null = null;
  let handoff: string | null = null;
  let timer: ReturnType<typeof setTimeout> | undefined;

  const landing = new URL(location.href);
  const clickParam = landing.searchParams.get('rapport_click');
  // A shared link that sent the visitor here: its signed hand-off, kept and sent until it identifies.
  const handoffParam = landing.searchParams.get('rapport_lv');
  if (clickParam || handoffParam) {
    if (clickParam) click = clickParam.slice(0, 2048);
    if (handoffParam) handoff = handoffParam.slice(0, 1024);
    // The tokens are not left in the address bar, the history or a copied link.
    landing.searchParams.delete('rapport_click');
    landing.searchParams.delete('rapport_lv');
    try {
      history.replaceState(history.state, '', landing.href);
    } catch {
      // Not allowed here: it stays.
    }
  }

  /** The visitor's ids, made (and stored) once sending is allowed; a new visit after 30 idle minutes. */
  const begin = (): void => {
    visitorId = read(VISITOR) ?? '';
    if (!/^[A-Za-z0-9_-]{8,64}$/.test(visitorId)) visitorId = randomId();
    write(VISITOR, visitorId, 365 * 24 * 3600);
    if (handoff !== null) write(HANDOFF, handoff, 30 * 24 * 3600);
    else handoff = read(HANDOFF);
    const [id, last] = (read(VISIT) ?? '').split('.');
    const now = Date.now();
    if (id && /^[A-Za-z0-9_-]{8,64}$/.test(id) && now - Number(last) < IDLE_MS) visitId = id;
    else {
      visitId = randomId();
      const ref = document.referrer && new URL(document.referrer).origin !== location.origin ? document.referrer : '';
      queue.unshift({ t: 'visit', at: now, url: clean(location.href), title: document.title, ref: clean(ref), kw: keywordOf(ref) });
    }
  };
  const touch = (): void => write(VISIT, `${visitId}.${Date.now()}`, IDLE_MS / 1000);

  /** Calls the server refused for load (503) or rate (429) for a minute at most: nothing of them was written, so they go again. */
  const refused = new Set<string>();
  const beacon = (text: string): boolean => typeof navigator.sendBeacon === 'function' && navigator.sendBeacon(endpoint, text);
  const post = (text: string, tries: number): void => {
    void fetch(endpoint, {
      method: 'POST',
      body: text,
      keepalive: true,
      credentials: 'omit',
      headers: { 'Content-Type': 'text/plain' },
    })
      .then((res) => {
        if ((res.status !== 503 && res.status !== 429) || tries >= 3) return;
        const after = Number(res.headers.get('Retry-After'));
        // Refused for longer than a minute (the project's daily quota is spent): not sent again.
        if (after > 60) return;
        refused.add(text);
        setTimeout(
          () => {
            if (refused.delete(text)) post(text, tries + 1);
          },
          Math.min(after > 0 ? after : 5, 60) * 1000,
        );
      })
      .catch(() => undefined);
  };

  /** Sends what waits: with sendBeacon when the page goes (it outlives the page), else fetch. */
  const flush = (leaving: boolean): void => {
    clearTimeout(timer);
    timer = undefined;
    if (declined || !consented) return;
    if (leaving) {
      for (const text of refused) {
        refused.delete(text);
        if (!beacon(text)) post(text, 3);
      }
    }
    if (queue.length === 0) return;
    if (!visitorId) begin();
    touch();
    while (queue.length > 0) {
      const body: Record<string, unknown> = { v: visitorId, s: visitId, e: queue.splice(0, 20) };
      if (click !== null) {
        body.c = click;
        click = null;
      }
      if (handoff) body.l = handoff;
      const text = JSON.stringify(body);
      if (!(leaving && beacon(text))) post(text, 0);
    }
  };

  const push = (e: Item, now = false): void => {
    if (declined) return;
    queue.push({ ...e, at: Date.now() });
    if (now || queue.length >= 20) flush(false);
    else timer ??= setTimeout(() => flush(false), 5000);
  };

  const visible = (): boolean => document.visibilityState === 'visible';
  const startPage = (): void => {
    page.id = randomId();
    page.since = Date.now();
    page.url = clean(location.href);
    page.title = document.title;
    page.visibleMs = 0;
    page.shownAt = visible() ? Date.now() : 0;
    push({ t: 'page', id: page.id, url: page.url, title: page.title });
  };
  const leavePage = (): void => {
    if (page.shownAt > 0) page.visibleMs += Date.now() - page.shownAt;
    page.shownAt = 0;
    push({ t: 'leave', id: page.id, url: page.url, title: page.title, since: page.since, ms: Math.round(page.visibleMs) });
  };
  const act = (a: string, target: string): void =>
    push({ t: 'act', id: randomId(), a, url: clean(location.href), title: document.title, target: target.slice(0, 255) });

  // ---- What happens on the page. ----
  document.addEventListener('visibilitychange', () => {
    if (visible()) page.shownAt = Date.now();
    else {
      if (page.shownAt > 0) page.visibleMs += Date.now() - page.shownAt;
      page.shownAt = 0;
      flush(true);
    }
  });
  addEventListener('pagehide', () => {
    leavePage();
    flush(true);
  });
  addEventListener('pageshow', (e) => {
    // Back from the back-forward cache: the page is viewed again.
    if ((e as PageTransitionEvent).persisted) startPage();
  });
  // Single-page sites: a new address is a new page.
  const pushState = history.pushState;
  history.pushState = function (this: History, ...args: Parameters<History['pushState']>) {
    leavePage();
    pushState.apply(this, args);
    startPage();
  };
  addEventListener('popstate', () => {
    leavePage();
    startPage();
  });
  // Form submits: the form's id (or name), never a field's value.
  document.addEventListener(
    'submit',
    (e) => {
      const form = e.target as HTMLFormElement;
      act('submit_form', form.id || form.getAttribute('name') || '');
    },
    true,
  );
  document.addEventListener(
    'click',
    (e) => {
      const a = (e.target as Element).closest?.('a[href], [data-rapport]');
      if (!a) return;
      const marked = a.getAttribute('data-rapport');
      const href = a.getAttribute('href') ?? '';
      if (marked === 'contact' || /^(mailto|tel|sms):/i.test(href))
        act('contact_service', marked === 'contact' ? a.id : (href.split(':')[0] as string));
      else if (marked === 'download' || a.hasAttribute('download') || FILE_RE.test(clean(href))) act('download_file', clean(href));
    },
    true,
  );
  // Media events do not bubble: caught on the way down.
  document.addEventListener(
    'play',
    (e) => {
      const m = e.target as HTMLMediaElement;
      act('play_media', m.id || clean(m.currentSrc || ''));
    },
    true,
  );

  // ---- The API. ----
  const api: Api = (command: string, ...args: unknown[]) => {
    const [a, b] = args;
    if (command === 'identify' && a !== null && typeof a === 'object') {
      const who = a as Record<string, unknown>;
      const e: Item = { t: 'identify' };
      for (const f of ['phone', 'email', 'customerId', 'hash']) if (typeof who[f] === 'string') e[f] = who[f];
      push(e, true);
    } else if (command === 'track' && typeof a === 'string') {
      push({ t: 'track', id: randomId(), a, url: clean(location.href), title: document.title, d: b ?? null });
    } else if (command === 'consent') {
      consented = true;
      flush(false);
    }
  };
  api.loaded = true;
  const waiting = w.rapport?.q ?? [];
  w.rapport = api;
  startPage();
  for (let i = 0; i < waiting.length; i += 1) {
    const call = Array.prototype.slice.call(waiting[i]) as [string, ...unknown[]];
    api(...call);
  }
})();
