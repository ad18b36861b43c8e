import type { Dayjs } from 'dayjs';
import type { CampaignInput, Draft } from './api.ts';

/**
 * The composer's state, apart from the screen: the draft the form makes (and the server previews),
 * whether the recipient count shown is the draft's own, and where a failure is shown.
 */

/** The merge fields the server fills (docs/campaigns.md). */
export const MERGE_FIELDS = ['name', 'email', 'company', 'title', 'phone'] as const;

/** A customer chosen in the recipients' search. */
export interface Picked {
  value: string;
  label: string;
}

/** The composer's form. */
export interface ComposerValues {
  title: string;
  html: string;
  mode: 'customers' | 'group';
  customers: Picked[];
  group?: string;
  when: 'now' | 'later';
  sendAt?: Dayjs | null;
}

export type RecipientMode = ComposerValues['mode'];
export type Recipients = Pick<Draft, 'customer_ids' | 'group_id'>;

/** The composer's fields that show the server's failures. */
export type Field = 'title' | 'html' | 'recipients' | 'sendAt';

/** Where the API names a field in a failure: the composer's field that shows it. */
export function fieldOf(code: string): Field | undefined {
  if (code.startsWith('title_')) return 'title';
  if (code.startsWith('html_')) return 'html';
  if (code.startsWith('send_at_')) return 'sendAt';
  if (code.startsWith('customer_') || code.startsWith('group_') || code === 'no_recipients') return 'recipients';
  return undefined;
}

/** The form field that shows a failure of `field`: the recipients' one is the field of the mode chosen. */
export function formName(field: Field, mode: RecipientMode): keyof ComposerValues {
  if (field === 'recipients') return mode === 'group' ? 'group' : 'customers';
  return field;
}

/** The recipients as the API names them: the group, or the customers picked; none while neither is chosen. */
export function recipientsOf(mode: RecipientMode, picked: readonly Picked[], group: string | undefined): Recipients {
  if (mode === 'group') return group ? { group_id: group } : {};
  return picked.length > 0 ? { customer_ids: picked.map((c) => c.value) } : {};
}

export function hasRecipients(recipients: Recipients): boolean {
  return recipients.customer_ids !== undefined || recipients.group_id !== undefined;
}

/** Whose values the preview shows: a customer still picked, else the sample ("", also for a group). */
export function previewedCustomer(mode: RecipientMode, picked: readonly Picked[], previewAs: string): string {
  return mode === 'customers' && picked.some((c) => c.value === previewAs) ? previewAs : '';
}

/** The draft the server previews and tests: subject, body, whose values fill it, the recipients. */
export function draftOf(input: { title: string; html: string; previewAs: string; recipients: Recipients }): Draft {
  const { title, html, previewAs, recipients } = input;
  return { title, html, ...(previewAs ? { customer_id: previewAs } : {}), ...recipients };
}

/** A draft the server can preview: subject and body not blank. */
export function canPreview(draft: Pick<Draft, 'title' | 'html'>): boolean {
  return draft.title.trim() !== '' && draft.html.trim() !== '';
}

/** The preview query as far as the count reads it. */
export interface PreviewState {
  isFetching: boolean;
  isPlaceholderData: boolean;
  isError: boolean;
  recipientCount: number | null | undefined;
}

/**
 * Whether the count shown is not yet the draft's as it is now: a change is still settling or being
 * previewed, the answer shown is an earlier draft's, or it has no count for the recipients chosen.
 */
export function isCounting(draft: Draft, settled: Draft, preview: PreviewState): boolean {
  return (
    JSON.stringify(draft) !== JSON.stringify(settled) ||
    preview.isFetching ||
    preview.isPlaceholderData ||
    (hasRecipients(draft) && !preview.isError && typeof preview.recipientCount !== 'number')
  );
}

/** The count the confirmation tells: none while counting or when the preview failed. */
export function confirmedCount(counting: boolean, preview: PreviewState): number | null | undefined {
  return counting || preview.isError ? undefined : preview.recipientCount;
}

/** The body with `{{field}}` put in place of the selection from `start` to `end`, and where the caret goes after it. */
export function insertMergeField(body: string, start: number, end: number, field: string): { html: string; caret: number } {
  const mark = `{{${field}}}`;
  return { html: body.slice(0, start) + mark + body.slice(end), caret: start + mark.length };
}

/** What Send makes: the draft's subject, body and recipients, and the send time when it is later. */
export function campaignInput(values: ComposerValues, recipients: Recipients, serverTime: (at: Dayjs) => string): CampaignInput {
  return {
    title: values.title,
    html: values.html,
    ...recipients,
    ...(values.when === 'later' && values.sendAt ? { send_at: serverTime(values.sendAt) } : {}),
  };
}

/** A customer as the recipients' search offers it: name and e-mail, or its id when it has neither. */
export function customerOption(customer: { id: string; name?: string | null; email?: string | null }): Picked {
  return { value: customer.id, label: [customer.name, customer.email].filter(Boolean).join(' · ') || customer.id };
}
