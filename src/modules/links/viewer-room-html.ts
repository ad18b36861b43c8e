import type { RoomItem } from '../rooms/service.ts';
import { barHeading, escapeHtml, jsonData, shell } from './viewer-html.ts';
import type { Brand, RoomViewerModel } from './viewer-model.ts';

/**
 * A room link's pages (docs/rooms.md): the room's tree of folders and documents, server-rendered,
 * usable without script (folders are `<details>`, documents plain links to their page viewer), as
 * wide as a phone's screen allows; and the bar of a room's document, with the way back to the room.
 */

const ROOM_STYLE = `
.room{max-width:760px;margin:0 auto;padding:16px 12px 48px}
.intro{margin:0 4px 12px;color:#4a5260;font-size:14px}
.panel{background:#fff;border:1px solid #d9dde3;border-radius:10px;overflow:hidden}
.tree,.tree ul{list-style:none;margin:0;padding:0}
.tree li+li>.row,.tree li+li>details>.row,.tree ul>li:first-child>.row,.tree ul>li:first-child>details>.row{border-top:1px solid #eef0f3}
.row{display:flex;align-items:center;gap:12px;min-height:56px;padding:10px 14px;color:inherit;text-decoration:none}
a.row:hover,summary.row:hover{background:#f5f7fa}
a.row:focus-visible,summary.row:focus-visible{outline:2px solid #0b57d0;outline-offset:-2px}
summary.row{cursor:pointer;list-style:none;font-weight:600}
summary.row::-webkit-details-marker{display:none}
.icon{flex:none;width:24px;height:24px}
.chev{flex:none;width:16px;height:16px;color:#4a5260;transition:transform .15s}
details[open]>summary .chev{transform:rotate(90deg)}
.name{flex:1;min-width:0;overflow-wrap:anywhere}
.meta{flex:none;font-size:13px;font-weight:400;color:#4a5260;font-variant-numeric:tabular-nums}
.doc .name{color:#0b57d0}
.unavailable .name{color:#4a5260}
.d2{padding-left:38px}.d3{padding-left:62px}.d4{padding-left:86px}.d5{padding-left:110px}
.empty{padding:24px 16px;color:#4a5260;text-align:center}
@media (max-width:420px){.d2{padding-left:30px}.d3{padding-left:46px}.d4{padding-left:62px}.d5{padding-left:78px}}
@media (min-width:900px){.room{padding-top:32px}}
`;

const DOC_STYLE = `
.back{flex:none;display:flex;align-items:center;justify-content:center;width:40px;height:40px;margin-left:-8px;border-radius:50%;color:#1b1f24;text-decoration:none;font-size:28px;line-height:1}
.back:hover{background:#eef0f3}
.back:focus-visible{outline:2px solid #0b57d0}
`;

const ICON_DOC =
  '<svg class="icon" viewBox="0 0 24 24" aria-hidden="true"><path fill="#e8effc" stroke="#0b57d0" stroke-width="1.5" d="M6 2.75h8.5L19.25 7.5V21.25H6z"/><path fill="none" stroke="#0b57d0" stroke-width="1.5" d="M14.5 2.75V7.5h4.75M9 12h7M9 15.5h7M9 19h4"/></svg>';
const ICON_FOLDER =
  '<svg class="icon" viewBox="0 0 24 24" aria-hidden="true"><path fill="#fdecc4" stroke="#b07800" stroke-width="1.5" d="M2.75 5.75h6.5l2 2.25h10v11.25H2.75z"/></svg>';
const CHEVRON =
  '<svg class="chev" viewBox="0 0 16 16" aria-hidden="true"><path fill="none" stroke="currentColor" stroke-width="2" d="M6 3.5 10.5 8 6 12.5"/></svg>';

const plural = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;

/** Documents in a tree, however deep. */
function documentCount(items: RoomItem[]): number {
  return items.reduce((n, i) => n + (i.type === 'file' ? 1 : documentCount(i.items)), 0);
}

/** The tree's items as list entries: folders collapsible (open at first), documents links to their viewer. */
function entries(items: RoomItem[], token: string, depth: number): string {
  return items
    .map((item) => {
      const d = depth > 1 ? ` d${Math.min(depth, 5)}` : '';
      if (item.type === 'folder') {
        const inner = item.items.length === 0 ? '' : `<ul>${entries(item.items, token, depth + 1)}</ul>`;
        return (
          `<li><details open><summary class="row folder${d}">${CHEVRON}${ICON_FOLDER}<span class="name">${escapeHtml(item.name)}</span>` +
          `<span class="meta">${plural(documentCount(item.items), 'document', 'documents')}</span></summary>${inner}</details></li>`
        );
      }
      const ready = item.status !== 'failed' && item.renderedPages > 0;
      const label = `${ICON_DOC}<span class="name">${escapeHtml(item.name)}</span>`;
      if (!ready) return `<li><span class="row doc unavailable${d}">${label}<span class="meta">Being prepared</span></span></li>`;
      const href = `/l/${token}/doc/${encodeURIComponent(item.fileId)}`;
      return `<li><a class="row doc${d}" href="${href}" data-room>${label}<span class="meta">${plural(item.pageCount, 'page', 'pages')}</span></a></li>`;
    })
    .join('');
}

/** The page of a room link: its folders and documents. */
export function roomViewerPage(m: RoomViewerModel, o: { nonce: string; script: string | null }): string {
  const token = encodeURIComponent(m.shareToken);
  const count = documentCount(m.room.items);
  const config = { token: m.viewToken, pages: 1, events: `/l/${m.shareToken}/events`, form: `/l/${m.shareToken}/form`, start: 1 };
  const tree =
    count === 0 && m.room.items.length === 0
      ? '<p class="empty">There are no documents here yet.</p>'
      : `<ul class="tree">${entries(m.room.items, token, 1)}</ul>`;
  return shell({
    title: m.title,
    nonce: o.nonce,
    brand: m.brand,
    head: `<style nonce="${o.nonce}">${ROOM_STYLE}</style>\n`,
    body: `<header class="bar">
${barHeading(m.title, m.brand)}
<span class="counter">${plural(count, 'document', 'documents')}</span>
</header>
<main class="room">
<p class="intro">Choose a document to read it.</p>
<nav class="panel" aria-label="Documents">${tree}</nav>
</main>
<script type="application/json" id="rapport-viewer">${jsonData(config)}</script>
${o.script ? `<script src="${o.script}" nonce="${o.nonce}" defer></script>` : ''}`,
  });
}

/** The bar's heading of a room's document: back to the room, the project and the room above the document's name. */
export function roomDocumentHeading(shareToken: string, title: string, roomTitle: string, brand: Brand | null): string {
  const back = `<a class="back" href="/l/${encodeURIComponent(shareToken)}" data-room aria-label="Back to ${escapeHtml(roomTitle)}">&#8249;</a>`;
  const line = brand ? `${brand.name} · ${roomTitle}` : roomTitle;
  return back + barHeading(title, { name: line, logo: brand?.logo ?? null });
}

/** The style a room's document page adds to the file viewer's. */
export const roomDocumentStyle = (nonce: string) => `<style nonce="${nonce}">${DOC_STYLE}</style>\n`;
