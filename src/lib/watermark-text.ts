/**
 * The text of a dynamic watermark (docs/links.md, "Watermarks and deterrence"), which watermark.js
 * draws into page images in the page renderer's child: who reads (an e-mail address, or `visitor` and
 * the visitor's short id), the time in UTC to the minute (`2026-11-01T09:05Z`) and the client's
 * address, separated by middle dots.
 */
export function watermarkText(mark: { who: string; at: number; address: string }): string {
  const time = new Date(Math.floor(mark.at / 60_000) * 60_000).toISOString().slice(0, 16);
  return `${mark.who} \u00b7 ${time}Z \u00b7 ${mark.address}`;
}
