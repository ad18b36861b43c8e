import type { Brand, EmailGateModel, FileViewerModel, WebViewerModel } from './viewer-model.ts';

/**
 * The public viewer's HTML (docs/links.md, "The viewer"): server-rendered, readable without
 * script (the first page's image is in the page with its size, the others load lazily), the
 * script given by a nonce, no inline handler or style attribute (the page's CSP allows none).
 */

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
export const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => ESCAPES[c] as string);

/** JSON inside a `<script type="application/json">`: `<` escaped so the text cannot close the element. */
export const jsonData = (value: unknown) =>
  JSON.stringify(value)
    .replace(/</g, '\\u003c')
    .replace(/\u2028/g, '\\u2028')
    .replace(/\u2029/g, '\\u2029');

const FORM_LABELS: Record<string, { label: string; type: string; autocomplete: string }> = {
  name: { label: 'Name', type: 'text', autocomplete: 'name' },
  email: { label: 'E-mail', type: 'email', autocomplete: 'email' },
  phone: { label: 'Mobile number', type: 'tel', autocomplete: 'tel' },
  company: { label: 'Company', type: 'text', autocomplete: 'organization' },
  title: { label: 'Job title', type: 'text', autocomplete: 'organization-title' },
  website: { label: 'Website', type: 'url', autocomplete: 'url' },
  interested: { label: 'What are you interested in?', type: 'textarea', autocomplete: 'off' },
};

const STYLE = `
*,*::before,*::after{box-sizing:border-box}
html{-webkit-text-size-adjust:100%;text-size-adjust:100%}
body{margin:0;background:#eef0f3;color:#1b1f24;font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,"Helvetica Neue",Arial,"PingFang SC","Microsoft YaHei",sans-serif}
.bar{position:sticky;top:0;z-index:2;display:flex;align-items:center;gap:12px;min-height:48px;padding:6px 16px;background:#fff;border-bottom:1px solid #d9dde3}
.bar h1{flex:1;min-width:0;margin:0;font-size:16px;font-weight:600;white-space:nowrap;overflow:hidden;text-overflow:ellipsis}
.heading{flex:1;min-width:0;display:flex;flex-direction:column}
.heading h1{flex:none}
.brand{font-size:12px;line-height:16px;color:#4a5260;white-space:nowrap;overflow:hidden;text-overflow:ellipsis}
.logo{flex:none;width:auto;height:32px;max-width:96px;object-fit:contain}
.card .logo{display:block;margin:0 0 12px}
.counter{flex:none;font-variant-numeric:tabular-nums;color:#4a5260;font-size:14px}
.download{flex:none;font-size:14px;color:#0b57d0;text-decoration:none;padding:6px 10px;border:1px solid #c6cbd3;border-radius:6px}
.deck{max-width:960px;margin:0 auto;padding:12px 0 88px}
.page{margin:0 0 12px;background:#fff;box-shadow:0 1px 3px rgba(0,0,0,.12)}
.page img{display:block;width:100%;height:auto;background:#fff}
.nav{position:fixed;right:16px;bottom:16px;z-index:2;display:flex;gap:8px}
.nav button{width:48px;height:48px;border:1px solid #c6cbd3;border-radius:50%;background:#fff;color:#1b1f24;font-size:24px;line-height:1;box-shadow:0 1px 4px rgba(0,0,0,.15);cursor:pointer}
.nav button:disabled{opacity:.4;cursor:default}
.card{max-width:480px;margin:12px;padding:20px 16px;background:#fff;border-radius:8px;box-shadow:0 1px 3px rgba(0,0,0,.12)}
.card h2{margin:0 0 12px;font-size:18px}
.card p{margin:0 0 12px;color:#4a5260}
.field{display:block;margin:0 0 12px}
.field span{display:block;margin:0 0 4px;font-size:14px;color:#4a5260}
.field input,.field textarea{width:100%;padding:10px 12px;border:1px solid #c6cbd3;border-radius:6px;font:inherit;background:#fff;color:inherit}
.field textarea{min-height:88px;resize:vertical}
.submit{width:100%;padding:12px;border:0;border-radius:6px;background:#0b57d0;color:#fff;font:inherit;font-weight:600;cursor:pointer}
.hp{position:absolute;left:-10000px;width:1px;height:1px;overflow:hidden}
.error,.card .error{color:#b3261e}
.sent,.card .sent{color:#146c2e}
.card.wide{max-width:720px}
.agreement{max-height:50vh;overflow:auto;margin:0 0 16px;padding:12px;border:1px solid #c6cbd3;border-radius:6px;background:#f8f9fb;color:#1b1f24;font-size:15px;line-height:1.55;white-space:pre-wrap;overflow-wrap:anywhere}
.check{display:flex;gap:10px;align-items:flex-start;margin:0 0 16px}
.check input{flex:none;width:20px;height:20px;margin:2px 0 0}
.code input{font-size:22px;letter-spacing:.3em;font-variant-numeric:tabular-nums}
.actions{display:flex;flex-wrap:wrap;gap:4px 20px;margin:12px 0 0}
.actions form{margin:0}
.plain{padding:8px 0;border:0;background:none;color:#0b57d0;font:inherit;font-size:15px;text-decoration:underline;cursor:pointer}
.card p.hint,.card p.version{font-size:14px}
.message{max-width:480px;margin:20vh auto 0;padding:24px 16px;text-align:center}
.message h1{font-size:22px;margin:0 0 8px}
.message p{color:#4a5260;margin:0}
.frame{display:block;width:100%;height:calc(100vh - 49px);border:0;background:#fff}
@media (min-width:504px){.card{margin:12px auto}.card.wide{margin:12px}}
@media (min-width:744px){.card.wide{margin:24px auto;padding:28px 32px}}
@media (min-width:900px){.deck{padding-top:24px}.page{margin-bottom:24px}}
.wm .deck{-webkit-user-select:none;user-select:none;-webkit-touch-callout:none}
.wm .page img{pointer-events:none}
.wm .deck{transition:filter .15s}
.wm.veiled .deck{filter:blur(28px)}
.print-note{display:none}
@media print{.wm .deck,.wm .nav,.wm .download{display:none}.wm .print-note{display:block;margin:24px 16px}}
`;

export interface Shell {
  title: string;
  nonce: string;
  body: string;
  /** The project behind the link: its logo is the page's icon. */
  brand?: Brand | null;
  /** Head extras (a refresh for a document still being prepared). */
  head?: string;
  /** The body's class (`wm`: a watermarked document, its deterrents on). */
  bodyClass?: string;
}

export function shell(s: Shell): string {
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex, nofollow, noarchive">
<meta name="referrer" content="no-referrer">
${s.brand?.logo ? `<link rel="icon" href="${escapeHtml(s.brand.logo)}">` : '<link rel="icon" href="/favicon.svg" type="image/svg+xml">'}
<title>${escapeHtml(s.title)}</title>
${s.head ?? ''}<style nonce="${s.nonce}">${STYLE}</style>
</head>
<body${s.bodyClass ? ` class="${s.bodyClass}"` : ''}>
${s.body}
</body>
</html>
`;
}

/** The project's logo (decorative: its name is next to it), or nothing. */
const logoImg = (brand: Brand | null | undefined) =>
  brand?.logo ? `<img class="logo" src="${escapeHtml(brand.logo)}" alt="" height="32">` : '';

/** A bar's heading: the project's name above the link's title, the logo before them. */
export function barHeading(title: string, brand: Brand | null | undefined): string {
  if (!brand) return `<h1>${escapeHtml(title)}</h1>`;
  return `${logoImg(brand)}<div class="heading"><span class="brand">${escapeHtml(brand.name)}</span><h1>${escapeHtml(title)}</h1></div>`;
}

/** A card's top: the logo and the project's name, as the bar would show them. */
export const cardBrand = (brand: Brand | null | undefined) =>
  brand ? `${logoImg(brand)}<p class="brand">${escapeHtml(brand.name)}</p>\n` : '';

/** A page saying why there is nothing to read (404 unknown, 410 disabled or expired, a document not ready). */
export function messagePage(nonce: string, heading: string, text: string, head?: string): string {
  return shell({
    title: heading,
    nonce,
    head,
    body: `<main class="message"><h1>${escapeHtml(heading)}</h1><p>${escapeHtml(text)}</p></main>`,
  });
}

/** The passcode a link asks for before it opens. */
export function passcodePage(
  nonce: string,
  shareToken: string,
  title: string,
  gate: { wrong: boolean; lockedFor?: number; brand?: Brand | null },
): string {
  const { wrong, lockedFor, brand } = gate;
  const action = `/l/${encodeURIComponent(shareToken)}/unlock`;
  const minutes = lockedFor === undefined ? 0 : Math.max(1, Math.ceil(lockedFor / 60));
  const problem =
    lockedFor !== undefined
      ? `<p class="error" role="alert">Too many wrong passcodes were given for this link. It does not open for ${minutes} minute${minutes === 1 ? '' : 's'}: try again then, or ask the person who sent it.</p>`
      : wrong
        ? '<p class="error" role="alert">That passcode is not right. Try again.</p>'
        : '';
  return shell({
    title: title || 'Protected document',
    nonce,
    brand,
    body: `<main class="card">
${cardBrand(brand)}<h2>${escapeHtml(title || 'Protected document')}</h2>
<p>Enter the passcode you were given to open it.</p>
${problem}
<form method="post" action="${action}">
<label class="field"><span>Passcode</span><input name="passcode" type="password" autocomplete="off" required maxlength="64" autofocus></label>
<button class="submit" type="submit">Open</button>
</form>
</main>`,
  });
}

/** What the e-mail gate says about the last address given. */
function emailProblem(gate: Pick<EmailGateModel, 'invalid' | 'refused' | 'unsent' | 'busy'>): string {
  if (gate.refused) {
    return '<p class="error" role="alert">This link is not shared with that address. Use the address it was sent to, or ask the person who sent it.</p>';
  }
  if (gate.unsent) return '<p class="error" role="alert">The code could not be sent just now. Try again in a moment.</p>';
  if (gate.busy !== undefined)
    return '<p class="error" role="alert">Too many codes were sent for this link in the last hour. Try again later.</p>';
  return gate.invalid ? '<p class="error" role="alert">Enter a valid e-mail address.</p>' : '';
}

/** The e-mail address a link asks for before its first page (with `verify`, a code is mailed to it next). */
export function emailGatePage(
  nonce: string,
  shareToken: string,
  title: string,
  gate: Omit<EmailGateModel, 'kind' | 'shareToken' | 'title'>,
): string {
  const { brand } = gate;
  const action = `/l/${encodeURIComponent(shareToken)}/gate`;
  const intro = gate.verify
    ? 'Enter your e-mail address to open it. We will send you a code to confirm it is yours.'
    : 'Enter your e-mail address to open it.';
  return shell({
    title: title || 'Document',
    nonce,
    brand,
    body: `<main class="card">
${cardBrand(brand)}<h2>${escapeHtml(title || 'Document')}</h2>
<p>${intro}</p>
${emailProblem(gate)}
<form method="post" action="${action}">
<label class="field"><span>E-mail</span><input name="email" type="email" autocomplete="email" required maxlength="254" autofocus></label>
<label class="field"><span>Name (optional)</span><input name="name" type="text" autocomplete="name" maxlength="255"></label>
<label class="hp" aria-hidden="true">Leave this empty<input name="url" type="text" tabindex="-1" autocomplete="off"></label>
<button class="submit" type="submit">${gate.verify ? 'Send me a code' : 'Continue'}</button>
</form>
</main>`,
  });
}

/** The form's card: fields, a honeypot, and a plain POST that works without script. */
function formCard(shareToken: string, fields: string[], sent: boolean): string {
  const inputs = fields
    .map((f) => {
      const spec = FORM_LABELS[f];
      if (!spec) return '';
      const control =
        spec.type === 'textarea'
          ? `<textarea name="${f}" maxlength="4000"></textarea>`
          : `<input name="${f}" type="${spec.type}" autocomplete="${spec.autocomplete}" maxlength="255">`;
      return `<label class="field"><span>${spec.label}</span>${control}</label>`;
    })
    .join('\n');
  return `<section class="card" id="form" aria-labelledby="form-title">
<h2 id="form-title">Leave your details</h2>
<p>We will get back to you.</p>
<p class="sent" id="form-sent" role="status"${sent ? '' : ' hidden'}>Thank you: your details were sent.</p>
<form method="post" action="/l/${encodeURIComponent(shareToken)}/form" id="form-fields"${sent ? ' hidden' : ''}>
${inputs}
<label class="hp" aria-hidden="true">Leave this empty<input name="url" type="text" tabindex="-1" autocomplete="off"></label>
<p class="error" id="form-error" role="alert" hidden></p>
<button class="submit" type="submit">Send</button>
</form>
</section>`;
}

export interface PageOptions {
  nonce: string;
  /** The viewer script's URL (hashed, immutable); null when it is not built (the pages still show). */
  script: string | null;
  /** The form was sent (a plain POST came back). */
  sent: boolean;
  /** `?p=`: the page to start at. */
  startPage: number;
  /** The bar's heading instead of the title's (a room's document: the way back to the room), and head extras. */
  heading?: string;
  head?: string;
}

/** The page of a file link: every page as an image (the first inline, the others lazily), and the form. */
export function fileViewerPage(m: FileViewerModel, o: PageOptions): string {
  const token = encodeURIComponent(m.shareToken);
  // A room's document: its images, download and beacons under the room link (docs/rooms.md).
  const base = m.room ? `/l/${token}/doc/${encodeURIComponent(m.room.fileId)}` : `/l/${token}`;
  const count = m.file.pageCount;
  const first = m.file.pages[0];
  const byNumber = new Map(m.file.pages.map((p) => [p.n, p]));
  const sections: string[] = [];
  const formAfter = m.formPosition === null ? null : Math.min(Math.max(1, m.formPosition), count);
  for (let n = 1; n <= count; n += 1) {
    const p = byNumber.get(n) ?? first;
    const width = p?.desktop.width ?? 1600;
    const height = p?.desktop.height ?? 900;
    const src = (w: 'phone' | 'desktop') => `${base}/page/${n}?width=${w}&amp;v=${encodeURIComponent(m.file.version)}`;
    // The first page (and the page a link starts at) load at once; the others as they near the screen.
    const eager = n === 1 || n === o.startPage;
    sections.push(
      `<section class="page" id="page-${n}" data-page="${n}"><img src="${src('phone')}" srcset="${src('phone')} 750w, ${src('desktop')} 1600w" ` +
        `sizes="(min-width: 960px) 960px, 100vw" width="${width}" height="${height}" alt="Page ${n} of ${count}" decoding="async"` +
        `${m.watermark ? ' draggable="false"' : ''}` +
        `${eager ? ' fetchpriority="high"' : ' loading="lazy"'}></section>`,
    );
    if (formAfter === n) sections.push(formCard(m.shareToken, m.formFields, o.sent));
  }
  const config = {
    token: m.viewToken,
    pages: count,
    events: `/l/${m.shareToken}/events`,
    form: `/l/${m.shareToken}/form`,
    start: o.startPage,
    ...(m.watermark ? { guard: true } : {}),
    ...(m.room ? { doc: m.room.fileId } : {}),
  };
  return shell({
    title: m.title,
    nonce: o.nonce,
    brand: m.brand,
    ...(m.watermark ? { bodyClass: 'wm' } : {}),
    head: o.head,
    body: `<header class="bar">
${o.heading ?? barHeading(m.title, m.brand)}
<span class="counter" aria-live="polite"><span id="current">${o.startPage}</span> / ${count}</span>
${m.download ? `<a class="download" href="${base}/download">Download</a>` : ''}
</header>
<main class="deck" id="deck">
${sections.join('\n')}
</main>
${m.watermark ? '<p class="print-note">This document cannot be printed from the viewer.</p>' : ''}
<nav class="nav" aria-label="Pages"><button type="button" id="prev" aria-label="Previous page">&#8249;</button><button type="button" id="next" aria-label="Next page">&#8250;</button></nav>
<script type="application/json" id="rapport-viewer">${jsonData(config)}</script>
${o.script ? `<script src="${o.script}" nonce="${o.nonce}" defer></script>` : ''}`,
  });
}

/** A web page link: framed (embed), or opened once the script has recorded the view. */
export function webViewerPage(m: WebViewerModel, o: PageOptions): string {
  const config = {
    token: m.viewToken,
    pages: 1,
    events: `/l/${m.shareToken}/events`,
    form: `/l/${m.shareToken}/form`,
    start: 1,
    ...(m.embed ? {} : { redirect: m.website }),
  };
  const website = escapeHtml(m.website);
  const body = m.embed
    ? `<header class="bar">${barHeading(m.title, m.brand)}<a class="download" href="${website}" rel="noopener noreferrer">Open</a></header>
<iframe class="frame" src="${website}" title="${escapeHtml(m.title)}" referrerpolicy="no-referrer" sandbox="allow-scripts allow-same-origin allow-forms allow-popups"></iframe>
${m.formPosition !== null ? formCard(m.shareToken, m.formFields, o.sent) : ''}`
    : `<main class="message"><h1>${escapeHtml(m.title || 'Opening…')}</h1><p>Opening <a href="${website}" rel="noopener noreferrer">${website}</a>…</p></main>`;
  return shell({
    title: m.title,
    nonce: o.nonce,
    brand: m.brand,
    head: m.embed ? undefined : `<noscript><meta http-equiv="refresh" content="0;url=${website}"></noscript>\n`,
    body: `${body}
<script type="application/json" id="rapport-viewer">${jsonData(config)}</script>
${o.script ? `<script src="${o.script}" nonce="${o.nonce}" defer></script>` : ''}`,
  });
}
