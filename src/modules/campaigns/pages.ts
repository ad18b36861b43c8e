import { escapeHtml } from './render.ts';

/** The unsubscribe pages (plain HTML, no script): the confirmation a GET shows, and what a POST answers. */
function page(heading: string, body: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex"><title>${escapeHtml(heading)}</title>
<style>body{font:16px/1.5 system-ui,sans-serif;max-width:32rem;margin:4rem auto;padding:0 1rem;color:#222}button{font:inherit;padding:.5rem 1rem}</style>
</head><body><h1>${escapeHtml(heading)}</h1>${body}</body></html>`;
}

export function unsubscribeConfirmPage(address: string, already: boolean): string {
  if (already) return page('Unsubscribed', `<p>${escapeHtml(address)} no longer receives these e-mails.</p>`);
  return page(
    'Unsubscribe',
    `<p>Stop sending these e-mails to ${escapeHtml(address)}?</p>` +
      `<form method="post"><input type="hidden" name="List-Unsubscribe" value="One-Click"><button type="submit">Unsubscribe</button></form>`,
  );
}

export function unsubscribedPage(): string {
  return page('Unsubscribed', '<p>You will no longer receive these e-mails.</p>');
}

export function invalidLinkPage(): string {
  return page('Link not valid', '<p>This unsubscribe link is not valid. Copy the whole address from the e-mail.</p>');
}
