/**
 * @-mentions in a note's Markdown (docs/tasks.md "Mentions"): `@[label](member:<platform user id>)`,
 * e.g. `@[Li Lei](member:1042)`, the link form a Markdown editor writes. The text is stored as
 * written; the ids are resolved by the service (members who may see the customer) and kept apart.
 * Pure.
 */

/** One mention: `@[` a label of 1–100 characters without brackets or line breaks `](member:` an id `)`. */
const MENTION = /@\[([^\]\r\n]{1,100})\]\(member:(\d{1,10})\)/g;

/** Distinct ids a note may mention; more is `content_invalid`. */
export const MAX_MENTIONS = 50;

/** The distinct platform user ids a text mentions, in the order they first appear. */
export function mentionedIds(content: string): number[] {
  const ids: number[] = [];
  for (const m of content.matchAll(MENTION)) {
    const id = Number(m[2]);
    if (id > 0 && !ids.includes(id)) ids.push(id);
  }
  return ids;
}
