/*
 * Which behaviour records are a customer's activity, and the kinds of it the customer list filters by.
 */

/**
 * Actions that record bookkeeping, not something the customer did: a customer's creation, a merge
 * into it, and the records of the team's notes and tasks. Every other record is activity (a
 * customer's last activity time).
 */
export const BOOKKEEPING_ACTIONS: readonly string[] = ['create', 'customer_merged', 'member_note', 'member_task'];

/** The records Rapport writes for the team's notes and tasks (ActionSpec `team`), which ingestion refuses. */
export const TEAM_ACTIONS: readonly string[] = ['member_note', 'member_task'];

/**
 * The kinds of activity the customer list filters by (docs/customers.md), each the actions that
 * are it: a shared link opened (a deck, a file or a web page), a page of a file read, a form filled
 * in (a link's or a site's), a site visited, a campaign's mail opened (or a link in it clicked).
 */
export const ACTIVITY_KINDS = {
  link_open: ['link_view_log'],
  file_read: ['file_view_duration'],
  form_fill: ['link_view_clue', 'submit_form', 'app_submit_form'],
  site_visit: ['access_site'],
  mail_open: ['mail_open', 'mail_click'],
} as const satisfies Record<string, readonly string[]>;

export type ActivityKind = keyof typeof ACTIVITY_KINDS;

/** The actions of an activity kind; undefined for a name that is none. */
export function activityActions(kind: string): readonly string[] | undefined {
  return Object.hasOwn(ACTIVITY_KINDS, kind) ? ACTIVITY_KINDS[kind as ActivityKind] : undefined;
}
