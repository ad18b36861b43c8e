import type { LinkViewDurationsTable, LinkViewLogsTable, LinksTable } from '../../db/index.ts';
import type { Selectable } from 'kysely';
import type { linkHistoryReads } from './histories.repository.ts';

/** A link as stored (the histories module maps it to the Link record). */
export type LinkRow = Selectable<LinksTable>;

/** A view log the viewer records, with what its beacons move on. */
export type ViewRow = Selectable<LinkViewLogsTable>;
export type DurationRow = Selectable<LinkViewDurationsTable>;

/** The read model the histories module's reads start from (histories.repository.ts). */
export type LinkHistoryReads = typeof linkHistoryReads;
export type { ViewDurationRow } from './histories.repository.ts';

/** A view log that silence closes, with what its leave record names of its link. */
export interface SilentView {
  app_id: string;
  id: string;
  link_id: string;
  customer_id: string | null;
  visitor_id: string | null;
  view_time: number;
  beacon_seq: number;
  beacon_at: number;
  left_at: number | null;
  link_type: number;
  link_name: string | null;
  link_src: string | null;
  link_tags: string | null;
}

/** Why a link does not open (its page says which): unknown and forged tokens alike are `missing`. */
export type Unavailable = 'missing' | 'disabled' | 'expired';

/** The form's fields the viewer may ask for, in the interface's Clue names. */
export const FORM_FIELDS = ['name', 'email', 'phone', 'company', 'title', 'website', 'interested'] as const;
export type FormField = (typeof FORM_FIELDS)[number];

/** A link's form's fields (the stored list, or the default one). */
export function formFieldsOf(link: Pick<LinkRow, 'form_fields'>, defaults: readonly string[]): FormField[] {
  const list = link.form_fields ? (JSON.parse(link.form_fields) as string[]) : defaults;
  return list.filter((f): f is FormField => (FORM_FIELDS as readonly string[]).includes(f));
}

/** The link's tags, as the overview's customerTag takes them. */
export function tagsOf(link: Pick<LinkRow, 'tags'>): string[] {
  return link.tags ? (JSON.parse(link.tags) as string[]) : [];
}
