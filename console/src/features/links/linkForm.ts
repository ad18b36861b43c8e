/**
 * The link form's values and what they send, pure: a new link's fields (`createInput`), an existing
 * link's values to start from (`editValues`) and the fields an edit changed (`editInput`), in the
 * API's names (docs/links.md, "Links through the API").
 */
import type { Dayjs } from 'dayjs';
import { parseServerTime, toServerTime } from '../../shared/time/serverTime.ts';
import type { LinkItem } from './api.ts';
import type { LinkEdit, LinkInput } from './formApi.ts';

/** What the form holds. */
export interface LinkFormValues {
  name: string;
  title?: string;
  type: 1 | 2 | 3;
  file_id?: string;
  website?: string;
  customer_id?: string;
  /** An edit of a link with a passcode: keep it, set a new one, or remove it. */
  passcode_change?: PasscodeChange;
  passcode?: string;
  expires?: Dayjs | null;
  allow_download?: boolean;
  email_gate?: boolean;
  watermark?: boolean;
  email_verify?: boolean;
  allow_list?: string;
  deny_list?: string;
  agreement?: string;
}

export type PasscodeChange = 'keep' | 'new' | 'remove';

/** Where the API names a field in a failure: the form field that shows it. */
export const FIELD_OF: Record<string, keyof LinkFormValues> = {
  name_required: 'name',
  title_invalid: 'title',
  file_id_required: 'file_id',
  file_not_found: 'file_id',
  invalid_file: 'file_id',
  website_required: 'website',
  website_invalid: 'website',
  customer_not_found: 'customer_id',
  passcode_invalid: 'passcode',
  expires_at_invalid: 'expires',
  mail_not_configured: 'email_verify',
  allow_list_invalid: 'allow_list',
  deny_list_invalid: 'deny_list',
  agreement_invalid: 'agreement',
};

/** A list typed in the form (commas, spaces or lines between its entries) as the API's comma list. */
export const listValue = (text: string | undefined) =>
  (text ?? '')
    .split(/[,\s]+/)
    .map((s) => s.trim())
    .filter(Boolean)
    .join(',');

/** A new form's values: a deck, every switch off (and the file given, when the form opens on one). */
export function newValues(fileId?: string): Partial<LinkFormValues> {
  return {
    type: 1,
    allow_download: false,
    email_gate: false,
    watermark: false,
    email_verify: false,
    ...(fileId ? { file_id: fileId } : {}),
  };
}

/** What a new link's form sends. */
export function createInput(v: LinkFormValues): LinkInput {
  return {
    name: v.name.trim(),
    ...(v.title?.trim() ? { title: v.title.trim() } : {}),
    type: v.type,
    ...(v.type === 1 ? { file_id: v.file_id ?? '' } : { website: (v.website ?? '').trim() }),
    ...(v.customer_id ? { customer_id: v.customer_id } : {}),
    ...(v.passcode ? { passcode: v.passcode } : {}),
    ...(v.expires ? { expires_at: toServerTime(v.expires) } : {}),
    ...(v.type === 1 ? { allow_download: v.allow_download ? 1 : 0, watermark: v.watermark ? 1 : 0 } : {}),
    email_gate: v.email_gate ? 1 : 0,
    // The code and the lists are the e-mail gate's (each turns it on): sent only with it.
    ...(v.email_gate && v.email_verify ? { email_verify: 1 as const } : {}),
    ...(v.email_gate && listValue(v.allow_list) ? { allow_list: listValue(v.allow_list) } : {}),
    ...(v.email_gate && listValue(v.deny_list) ? { deny_list: listValue(v.deny_list) } : {}),
    ...(v.agreement?.trim() ? { agreement: v.agreement.trim() } : {}),
  };
}

/** A link's form values: what it is now. */
export function editValues(link: LinkItem): LinkFormValues {
  const type = link.type === 2 || link.type === 3 ? link.type : 1;
  return {
    name: link.name ?? '',
    title: link.title ?? '',
    type,
    ...(type === 1 && link.file1 ? { file_id: link.file1 } : {}),
    ...(type !== 1 ? { website: link.website ?? '' } : {}),
    ...(link.customerId ? { customer_id: link.customerId } : {}),
    passcode_change: 'keep',
    expires: parseServerTime(link.expiresAt) ?? null,
    allow_download: link.allowDownload === 1,
    watermark: link.watermark === 1,
    email_gate: link.emailGate === 1,
    email_verify: link.emailVerify === 1,
    allow_list: link.allowList.join(', '),
    deny_list: link.denyList.join(', '),
    agreement: link.agreement ?? '',
  };
}

/**
 * Every field the form edits, as the API takes it: `''` for none (no title, customer, expiry, list or
 * agreement). The gate off clears its code and lists, which would turn it on again (docs/links.md).
 */
function editable(v: LinkFormValues, room: boolean): Record<string, string | number> {
  const gate = Boolean(v.email_gate);
  return {
    name: v.name.trim(),
    title: v.title?.trim() ?? '',
    ...(room ? {} : { type: v.type }),
    ...(room ? {} : v.type === 1 ? { file_id: v.file_id ?? '' } : { website: (v.website ?? '').trim() }),
    customer_id: v.customer_id ?? '',
    expires_at: v.expires ? toServerTime(v.expires.second(0)) : '',
    ...(room || v.type === 1 ? { allow_download: v.allow_download ? 1 : 0, watermark: v.watermark ? 1 : 0 } : {}),
    email_gate: gate ? 1 : 0,
    email_verify: gate && v.email_verify ? 1 : 0,
    allow_list: gate ? listValue(v.allow_list) : '',
    deny_list: gate ? listValue(v.deny_list) : '',
    agreement: v.agreement?.trim() ?? '',
  };
}

/** The passcode an edit sends: a new one, `''` to remove it, or nothing to keep what is there. */
function passcodeEdit(v: LinkFormValues, hadPasscode: boolean): Pick<LinkInput, 'passcode'> {
  const change = hadPasscode ? (v.passcode_change ?? 'keep') : 'new';
  if (change === 'remove') return { passcode: '' };
  return change === 'new' && v.passcode ? { passcode: v.passcode } : {};
}

/** What an edit sends: only the fields whose value changed from `before` (the link's values), and a passcode when one is set or removed. */
export function editInput(link: Pick<LinkItem, 'type' | 'hasPasscode'>, before: LinkFormValues, after: LinkFormValues): LinkEdit {
  const room = link.type === 4;
  const was = editable(before, room);
  const now = editable(after, room);
  const changed = Object.fromEntries(Object.entries(now).filter(([key, value]) => was[key] !== value));
  // A new kind needs its target, even one typed before the kind was changed back and forth.
  if ('type' in changed) {
    const target = after.type === 1 ? 'file_id' : 'website';
    changed[target] = now[target] ?? '';
  }
  return { ...(changed as LinkEdit), ...passcodeEdit(after, link.hasPasscode) };
}
