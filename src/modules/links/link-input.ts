import { fieldFailure } from '../../http/errors.ts';
import { FORM_FIELDS } from './mapper.ts';

/** The link fields of a create or an edit (snake_case, as the other endpoints take them). */
export interface LinkInput {
  name?: string | undefined;
  type?: number | undefined;
  file_id?: string | undefined;
  room_id?: string | undefined;
  website?: string | undefined;
  customer_id?: string | undefined;
  remark?: string | undefined;
  title?: string | undefined;
  form_position?: number | undefined;
  form_fields?: string | undefined;
  utm_source?: string | undefined;
  utm_medium?: string | undefined;
  utm_campaign?: string | undefined;
  utm_content?: string | undefined;
  utm_term?: string | undefined;
  tags?: string | string[] | undefined;
  expires_at?: string | undefined;
  passcode?: string | undefined;
  allow_download?: number | undefined;
  email_gate?: number | undefined;
  embed?: number | undefined;
  email_verify?: number | undefined;
  allow_list?: string | string[] | undefined;
  deny_list?: string | string[] | undefined;
  agreement?: string | undefined;
  watermark?: number | undefined;
}

/** An agreement's text: at most this many characters. */
export const AGREEMENT_MAX = 20_000;

/** Passcodes: 4 to 64 characters. */
export const PASSCODE_RE = /^.{4,64}$/su;

/** Text with something in it, trimmed; else null. */
export const str = (v: unknown): string | null => (typeof v === 'string' && v.trim() !== '' ? v.trim() : null);

/** An absolute http(s) URL of at most 2048 characters, or null. */
export function webAddress(value: string): string | null {
  if (value.length > 2048) return null;
  try {
    const u = new URL(value);
    return u.protocol === 'http:' || u.protocol === 'https:' ? u.href : null;
  } catch {
    return null;
  }
}

/** The tags given (a list, or comma-separated), trimmed and without repeats; null when none were given. */
export function parseTags(tags: LinkInput['tags']): string[] | null {
  if (tags === undefined) return null;
  const list = (Array.isArray(tags) ? tags : tags.split(',')).map((t) => t.trim()).filter((t) => t !== '');
  if (list.length > 50 || list.some((t) => t.length > 64))
    throw fieldFailure('tags', 'invalid', 'tags: at most 50, each at most 64 characters');
  return [...new Set(list)];
}

/** The form's fields as stored (a JSON list), null for the default ones, undefined when not given. */
export function parseFormFields(value: string | undefined): string | null | undefined {
  if (value === undefined) return undefined;
  if (value.trim() === '') return null;
  const list = [...new Set(value.split(',').map((f) => f.trim()))];
  const bad = list.find((f) => !(FORM_FIELDS as readonly string[]).includes(f));
  if (bad !== undefined) {
    throw fieldFailure('form_fields', 'invalid', `form_fields: ${bad.slice(0, 32)} is not one of ${FORM_FIELDS.join(', ')}`);
  }
  return JSON.stringify(list);
}
