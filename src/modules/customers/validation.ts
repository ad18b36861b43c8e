import type { CustomersTable } from '../../db/index.ts';
import type { Selectable, Updateable } from 'kysely';
import { type AppError, fieldFailure, forbidden } from '../../http/errors.ts';
import { isEmail } from '../../lib/formats.ts';
import { isLandlineNumber, isMobileNumber, phoneKey } from '../../lib/phones.ts';
import type { MetadataRow } from '../metadata/service.ts';
import type { UniqueKey } from './writes.repository.ts';
import { ATTRIBUTE_BY_NAME, type AttributeSpec, PLAIN_FIELDS, readParam } from './attributes.ts';
import { type FieldValue, CUSTOM_TEXT_MAX, DATE_RE, NUMBER_RE, isCalendarDate, optionValueSet, parseExt, readCustom } from './fields.ts';

export type ValidationMode = 'create' | 'edit' | 'ingest';

export type { UniqueKey };

/** What the engine needs to know beyond the input: the database answers it through these. */
export interface ValidationEnv {
  mode: ValidationMode;
  /** The project's form: its attributes in order, removed ones left out. */
  metadata: MetadataRow[];
  /** The project's region (ISO 3166-1 alpha-2): what a phone number without its country code means. */
  region: string;
  /** The member acting (path svc-user-id, or the project's default owner for ingestion). */
  actingUserId: number;
  /** Master/Admin (or ingestion): may assign customers to another member. */
  mayAssignOthers: boolean;
  /** The customer being edited (edit mode). */
  current?: Selectable<CustomersTable> | undefined;
  isActiveMember(userId: number): Promise<boolean>;
  isGroupOf(groupId: string, ownerId: number): Promise<boolean>;
  /** Another live customer of the project already has this value. */
  isTaken(key: UniqueKey, value: string | number, exceptId: string | undefined): Promise<boolean>;
}

export interface ValidatedCustomer {
  values: Updateable<CustomersTable>;
  /** Set when the input names an owner different from the current one (edit) or the acting member. */
  ownerId: number;
  ownerChanged: boolean;
  /** Custom fields the input sets (null: cleared), in their stored form; `values.ext` is left to the caller. */
  fields: Record<string, FieldValue | null>;
}

/** The raw parameter as trimmed text; null for an explicit empty value; AppError for objects. */
function asText(raw: unknown, name: string): string | null | AppError {
  if (raw === null) return null;
  if (typeof raw === 'string') return raw.trim() === '' ? null : raw.trim();
  if (typeof raw === 'number' && Number.isFinite(raw)) return String(raw);
  if (typeof raw === 'boolean') return String(raw);
  return fieldFailure(name, 'invalid', `${name} must be a single value`);
}

const INT_RE = /^-?\d{1,9}$/;

/** The value as stored, compared as text (null for none). */
function storedText(v: unknown): string | null {
  if (v === null || v === undefined || v === '') return null;
  return Array.isArray(v) ? JSON.stringify(v.map(String)) : String(v);
}

/** One validation under way: its input and environment, and what it has collected so far. */
interface Run {
  input: Record<string, unknown>;
  env: ValidationEnv;
  values: Record<string, unknown>;
  fields: Record<string, FieldValue | null>;
  currentExt: Record<string, FieldValue>;
  /** The owner before the input: the customer's (edit) or the acting member. */
  baseOwner: number;
  /** The owner the input asks for (groups are checked against it). */
  requestedOwner: number;
}

/**
 * The metadata-driven validation engine (docs/metadata.md): required (create), option values,
 * formats, readonly (edit, when the value changes), unique — for the built-in attributes and the
 * project's custom fields alike. The API's create and edit, ingestion, the import and the
 * console's forms all go through it. Checks run in metadata order and the first failing attribute
 * answers `<attribute>_required | _invalid | _readonly | _unique`.
 */
export async function validateCustomer(input: Record<string, unknown>, env: ValidationEnv): Promise<ValidatedCustomer> {
  // The owner decides which groups are allowed, so it is settled before the in-order checks.
  const ownerRaw = readParam(input, { param: 'svc_user_id', name: 'svcUserId' });
  const ownerText = ownerRaw === undefined ? null : asText(ownerRaw, 'svcUserId');
  const baseOwner = env.current?.owner_id ?? env.actingUserId;
  const requestedOwner = typeof ownerText === 'string' && INT_RE.test(ownerText) ? Number(ownerText) : baseOwner;
  const run: Run = { input, env, values: {}, fields: {}, currentExt: parseExt(env.current?.ext ?? null), baseOwner, requestedOwner };
  for (const row of env.metadata) await checkAttribute(run, row);
  return result(run);
}

/** The attribute's value as sent, as trimmed text: undefined when not sent, null when sent blank. */
function sentText(run: Run, row: MetadataRow, spec: AttributeSpec | undefined): string | null | undefined {
  let raw = spec ? readParam(run.input, spec) : readCustom(run.input, row.name);
  if (!spec && row.type === 'multiOption' && Array.isArray(raw)) raw = raw.map(String).join('\u0000');
  if (!spec && row.type === 'multiOption' && typeof raw === 'string') {
    const parts = multiParts(raw);
    raw = parts.length === 0 ? '' : parts.join('\u0000');
  }
  const text = raw === undefined ? undefined : asText(raw, row.name);
  if (text instanceof Error) throw text;
  // Option fields take "0" as "not set" where "0" is not one of their options (the original's forms sent it).
  if (row.type === 'option' && text === '0' && !optionValueSet(row).has('0')) return null;
  return text;
}

/** Sets the attribute's value (a built-in attribute's or a custom field's). */
function put(run: Run, row: MetadataRow, spec: AttributeSpec | undefined, value: FieldValue | null): void {
  if (spec) run.values[row.name] = value;
  else run.fields[row.name] = value;
}

/** One attribute of the form checked against the input, in the form's order. */
async function checkAttribute(run: Run, row: MetadataRow): Promise<void> {
  const spec: AttributeSpec | undefined = ATTRIBUTE_BY_NAME.get(row.name);
  const name = row.name;
  const editing = run.env.mode === 'edit';
  const current = editing && run.env.current ? (spec ? run.env.current[spec.column] : run.currentExt[name]) : undefined;
  const text = sentText(run, row, spec);
  const present = text !== undefined;

  if (text !== undefined && editing && row.readonly === 1) {
    // A read-only attribute sent back as it is (a customer read from the API and sent again) is no change.
    const same = storedText(current) === (text === null ? null : normalised(row, spec, text));
    if (!same) throw fieldFailure(name, 'readonly', `${name} is read-only`);
    return;
  }

  if (text === undefined || text === null) {
    const creating = !editing;
    if (row.required === 1 && (creating ? row.default_value === null : present)) {
      throw fieldFailure(name, 'required', `${name} is required`);
    }
    // On create a blank value is no value: the attribute's default applies.
    if (creating && row.default_value !== null) put(run, row, spec, row.default_value);
    else if (present) put(run, row, spec, null);
    return;
  }

  const maxLength = spec?.maxLength ?? (row.type === 'multiOption' ? 10_000 : CUSTOM_TEXT_MAX);
  if (text.length > maxLength) throw fieldFailure(name, 'invalid', `${name} must be at most ${maxLength} characters`);
  let stored = await typedValue(run, row, text, current);
  if (spec?.int && !INT_RE.test(text)) throw fieldFailure(name, 'invalid', `${name} must be a whole number`);
  if (spec) stored = spec.int ? Number(text) : text;
  if (row.is_unique === 1 && !Array.isArray(stored)) {
    // A unique mobile number is one number however it is written: its key is what must be free.
    const byKey = spec?.column === 'phone';
    const key: UniqueKey = byKey ? 'phone_key' : spec ? spec.column : `field:${name}`;
    const asked = byKey ? (phoneKey(text, run.env.region) ?? text) : spec ? stored : String(stored);
    if (await run.env.isTaken(key, asked, run.env.current?.id))
      throw fieldFailure(name, 'unique', `another customer already has this ${name}`);
  }
  put(run, row, spec, stored);
}

/** A sent value checked by its attribute's type, and its stored form (a number, a multi-option's values, else the text). */
async function typedValue(run: Run, row: MetadataRow, text: string, current: unknown): Promise<FieldValue> {
  const invalid = (why: string) => fieldFailure(row.name, 'invalid', `${row.name} ${why}`);
  const { env } = run;
  switch (row.type) {
    // Numbers are checked against the project's region and stored as sent; a value the customer
    // already has stays acceptable (one stored before numbers were read this way).
    case 'phone':
      if (!isMobileNumber(text, env.region) && storedText(current) !== text)
        throw invalid(`is not a valid mobile number for region ${env.region}`);
      return text;
    case 'fixedPhone':
      if (!isLandlineNumber(text, env.region) && storedText(current) !== text)
        throw invalid(`is not a valid landline number for region ${env.region}`);
      return text;
    case 'email':
      if (!isEmail(text)) throw invalid('is not a valid e-mail address');
      return text;
    case 'option':
      // A value the customer already has stays acceptable after its option is removed.
      if (!optionValueSet(row).has(text) && storedText(current) !== text) throw invalid(`must be one of the options of ${row.name}`);
      return text;
    case 'multiOption': {
      const options = optionValueSet(row);
      const had = new Set(Array.isArray(current) ? current.map(String) : []);
      const picked = text.split('\u0000');
      const bad = picked.find((p) => !options.has(p) && !had.has(p));
      if (bad !== undefined) throw invalid(`must be options of ${row.name} ("${bad.slice(0, 64)}" is not one)`);
      return picked;
    }
    case 'number':
      if (!NUMBER_RE.test(text)) throw invalid('must be a number (up to 15 digits, 6 after the point)');
      return Number(text);
    case 'date':
      if (!DATE_RE.test(text) || !isCalendarDate(text)) throw invalid('must be a date, YYYY-MM-DD');
      return text;
    case 'owner': {
      if (!INT_RE.test(text)) throw invalid('must be a platform user id');
      const owner = Number(text);
      if (owner !== run.baseOwner || env.mode !== 'edit') {
        if (owner !== env.actingUserId && !env.mayAssignOthers) {
          throw forbidden('Only the project Master or an Admin may assign a customer to another member');
        }
        if (!(await env.isActiveMember(owner))) throw invalid('is not a member of this project');
      }
      return text;
    }
    case 'member':
      if (!INT_RE.test(text) || !(await env.isActiveMember(Number(text)))) throw invalid('is not a member of this project');
      return text;
    case 'group':
      if (!(await env.isGroupOf(text, run.requestedOwner))) throw invalid("is not one of the owner's groups");
      return text;
    default:
      return text;
  }
}

/** The checked values as columns, the plain fields (no metadata) added, and the owner they name. */
function result(run: Run): ValidatedCustomer {
  const out: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(run.values)) {
    const spec = ATTRIBUTE_BY_NAME.get(name);
    if (!spec) continue;
    out[spec.column] = spec.int && value !== null ? Number(value) : value;
  }
  for (const spec of PLAIN_FIELDS) {
    const raw = readParam(run.input, spec);
    if (raw === undefined) continue;
    const text = asText(raw, spec.name);
    if (text instanceof Error) throw text;
    if (text !== null && text.length > spec.maxLength) throw fieldFailure(spec.name, 'invalid', `${spec.name} is too long`);
    out[spec.column] = text;
  }
  if (typeof out.email === 'string') out.email_lower = out.email.toLowerCase();
  else if (out.email === null) out.email_lower = null;
  if (typeof out.phone === 'string') out.phone_key = phoneKey(out.phone, run.env.region);
  else if (out.phone === null) out.phone_key = null;
  // The owner column is set by the service (transfers have their own rules); keep it out of values.
  const ownerId = typeof out.owner_id === 'number' ? out.owner_id : run.baseOwner;
  delete out.owner_id;
  return { values: out as Updateable<CustomersTable>, ownerId, ownerChanged: ownerId !== run.baseOwner, fields: run.fields };
}

/** A multi-option value's parts: a JSON array, or values separated by commas. */
function multiParts(raw: string): string[] {
  const t = raw.trim();
  let parts: unknown[] = t.split(t.includes('\u0000') ? '\u0000' : ',');
  if (t.startsWith('[')) {
    try {
      const parsed: unknown = JSON.parse(t);
      if (Array.isArray(parsed)) parts = parsed;
    } catch {
      // not JSON: separated by commas
    }
  }
  return [...new Set(parts.map((p) => String(p).trim()).filter((p) => p !== ''))];
}

/** A sent value as it would be stored, as text (for comparing with the stored one). */
function normalised(row: MetadataRow, spec: AttributeSpec | undefined, text: string): string {
  if (spec?.int && INT_RE.test(text)) return String(Number(text));
  if (!spec && row.type === 'number' && NUMBER_RE.test(text)) return String(Number(text));
  if (!spec && row.type === 'multiOption') return JSON.stringify(text.split('\u0000'));
  return text;
}
