/** What the customer list offers to sort and filter by (the API's parameters: docs/customers.md). */
export const SORT_KEYS = ['updated', 'created', 'name', 'last_activity', 'score'] as const;
export type SortKey = (typeof SORT_KEYS)[number];
export type SortOrder = 'asc' | 'desc';

/** The order a sort has when none is asked: newest first, the highest score first, the name A to Z. */
export const defaultOrder = (sort: SortKey): SortOrder => (sort === 'name' ? 'asc' : 'desc');

export const ACTIVITY_KINDS = ['any', 'link_open', 'file_read', 'form_fill', 'site_visit', 'mail_open'] as const;
export type ActivityKind = (typeof ACTIVITY_KINDS)[number];

/** Periods of the activity filter: today and this week in the user's own time zone, or the last days. */
export const PERIODS = ['today', 'week', '7d', '30d', '90d'] as const;
export type Period = (typeof PERIODS)[number];

/**
 * The API's parameters of a period: `since` at the start of the user's day or week (their clock, their
 * time zone, the week starting on their locale's first day), or `period` for the last days.
 */
export function periodQuery(period: Period | undefined, language: string, now = new Date()): { since?: number; period?: string } {
  if (period === undefined) return {};
  if (period !== 'today' && period !== 'week') return { period };
  const start = new Date(now.getFullYear(), now.getMonth(), now.getDate());
  if (period === 'week') {
    // Intl.Locale's week info: 1 Monday … 7 Sunday; Monday where the browser does not say.
    const locale = new Intl.Locale(language) as Intl.Locale & { getWeekInfo?: () => { firstDay: number }; weekInfo?: { firstDay: number } };
    const firstDay = (locale.getWeekInfo?.() ?? locale.weekInfo)?.firstDay ?? 1;
    const back = (start.getDay() - (firstDay % 7) + 7) % 7;
    start.setDate(start.getDate() - back);
  }
  return { since: start.getTime() };
}
