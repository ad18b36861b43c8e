import { cardBrand, escapeHtml, shell } from './viewer-html.ts';
import type { AgreementModel, CodeGateModel } from './viewer-model.ts';

/*
 * The e-mail gate's code page and the agreement page (docs/links.md, "Who is reading"): server-rendered
 * forms that work without script, in the viewer's style and under its CSP (no inline handler or style).
 */

const minutes = (s: number) => {
  const m = Math.max(1, Math.ceil(s / 60));
  return `${m} minute${m === 1 ? '' : 's'}`;
};

/** What the code page says about the last code, or the last request for one. */
function codeProblem(m: CodeGateModel): string {
  if (m.lockedFor !== undefined) {
    return `<p class="error" role="alert">Too many wrong codes were entered for this address. Try again in ${minutes(m.lockedFor)}, or ask the person who sent you the link.</p>`;
  }
  if (m.waitFor !== undefined) {
    return `<p class="error" role="alert">A code was sent to this address a moment ago. You can ask for a new one in ${m.waitFor} second${m.waitFor === 1 ? '' : 's'}.</p>`;
  }
  if (m.problem === 'malformed') return '<p class="error" role="alert">Enter the six digits of the code.</p>';
  if (m.problem === 'wrong')
    return '<p class="error" role="alert">That code is not right. Check the latest e-mail we sent and try again.</p>';
  if (m.problem === 'expired') return '<p class="error" role="alert">That code has expired or was already used. Send a new code.</p>';
  return '';
}

/** The e-mail gate's second step: the code mailed to the address, a new code, another address. */
export function codePage(nonce: string, m: CodeGateModel): string {
  const token = encodeURIComponent(m.shareToken);
  const email = escapeHtml(m.email);
  const codeForm =
    m.lockedFor !== undefined
      ? ''
      : `<form method="post" action="/l/${token}/verify" class="code">
<label class="field"><span>Code</span><input name="code" type="text" inputmode="numeric" autocomplete="one-time-code" pattern="[0-9 ]*" minlength="6" maxlength="7" required autofocus></label>
<button class="submit" type="submit">Open</button>
</form>`;
  return shell({
    title: m.title || 'Document',
    nonce,
    brand: m.brand,
    body: `<main class="card">
${cardBrand(m.brand)}<h2>Check your e-mail</h2>
<p>${
      m.lockedFor === undefined
        ? `We sent a six-digit code to <strong>${email}</strong>. Enter it to open “${escapeHtml(m.title || 'Document')}”. It is valid for 10 minutes.`
        : `The codes sent to <strong>${email}</strong> no longer open “${escapeHtml(m.title || 'Document')}” for now.`
    }</p>
${codeProblem(m)}
${codeForm}
<div class="actions">
<form method="post" action="/l/${token}/gate"><input type="hidden" name="email" value="${email}">${
      m.name === undefined ? '' : `<input type="hidden" name="name" value="${escapeHtml(m.name)}">`
    }<button class="plain" type="submit">Send a new code</button></form>
<form method="post" action="/l/${token}/gate"><input type="hidden" name="change" value="1"><button class="plain" type="submit">Use another address</button></form>
</div>
<p class="hint">No e-mail after a minute? Look in your spam folder, or send a new code.</p>
</main>`,
  });
}

/** The agreement, accepted with a ticked box (and a name) before the document opens. */
export function agreementPage(nonce: string, m: AgreementModel): string {
  const token = encodeURIComponent(m.shareToken);
  const problem =
    m.problem === 'unticked'
      ? '<p class="error" role="alert">Tick the box to accept the agreement.</p>'
      : m.problem === 'changed'
        ? '<p class="error" role="alert">The agreement was changed while you were reading it. Read it again below.</p>'
        : '';
  return shell({
    title: m.title || 'Document',
    nonce,
    brand: m.brand,
    body: `<main class="card wide">
${cardBrand(m.brand)}<h2>${escapeHtml(m.title || 'Document')}</h2>
<p>Read and accept this agreement to open the document.</p>
<div class="agreement" id="agreement" tabindex="0" role="region" aria-label="Agreement">${escapeHtml(m.text)}</div>
<p class="version">Version ${m.version}</p>
${problem}
<form method="post" action="/l/${token}/agree">
<input type="hidden" name="version" value="${m.version}">
<label class="field"><span>Your name (optional)</span><input name="name" type="text" autocomplete="name" maxlength="255" value="${escapeHtml(m.name ?? '')}"></label>
<label class="check"><input name="agree" type="checkbox" value="1" required><span>I have read and agree to this agreement</span></label>
<button class="submit" type="submit">I agree</button>
</form>
</main>`,
  });
}
