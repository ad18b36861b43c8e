import type { CustomersTable } from '../../db/index.ts';
import type { Updateable } from 'kysely';
import { type AppError, fieldFailure, forbidden } from '../../http/errors.ts';
import { FIXED_PHONE_RE, isEmail, isPhone } from '../../lib/formats.ts';
import type { MetadataRow } from '../metadata/mapper.ts';
import { ATTRIBUTE_BY_NAME, type AttributeSpec, PLAIN_FIELDS, readParam } from './attributes.ts';

export type ValidationMode = 'create' | 'edit' | 'ingest';

/** What the engine needs to know beyond the input: the database answers it through these. */
export interface ValidationEnv {
  mode: ValidationMode;
  metadata: MetadataRow[];
  /** The member acting (path svc-user-id, or the project's default owner for ingestion). */
  actingUserId: number;
  /** Master/Admin (or ingestion): may assign customers to another member. */
  mayAssignOthers: boolean;
  /** The customer being edited (edit mode). */
  current?: { id: string; owner_id: number; group_id: string | null } | undefined;
  isActiveMember(userId: number): Promise<boolean>;
  isGroupOf(groupId: string, ownerId: number): Promise<boolean>;
  /** Another live customer of the project already has this value. */
  isTaken(column: keyof CustomersTable, value: string | number, exceptId: string | undefined): Promise<boolean>;
}

export interface ValidatedCustomer {
  values: Updateable<CustomersTable>;
  /** Set when the input names an owner different from the current one (edit) or the acting member. */
  ownerId: number;
  ownerChanged: boolean;
}

interface OptionValue {
  value: string;
}

/** Parsed once per metadata row read (a batch of a list or an import validates many inputs against the same rows). */
const parsedOptions = new WeakMap<MetadataRow, Set<string>>();

function optionValues(row: MetadataRow): Set<string> {
  let values = parsedOptions.get(row);
  if (values === undefined) {
    try {
      const parsed = JSON.parse(row.option_values ?? '[]') as OptionValue[];
      values = new Set(parsed.map((o) => String(o.value)));
    } catch {
      values = new Set();
    }
    parsedOptions.set(row, values);
  }
  return values;
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

/**
 * The metadata-driven validation engine (docs/interface.md §9): required (create), option values, formats,
 * readonly (edit), unique. Checks run in metadata order and the first failing attribute answers
 * `<attribute>_required | _invalid | _readonly | _unique`.
 */
export async function validateCustomer(input: Record<string, unknown>, env: ValidationEnv): Promise<ValidatedCustomer> {
  const values: Record<string, unknown> = {};
  const ext: Record<string, string> = {};

  // The owner decides which groups are allowed, so it is settled before the in-order checks.
  const ownerRaw = readParam(input, { param: 'svc_user_id', name: 'svcUserId' });
  const ownerText = ownerRaw === undefined ? null : asText(ownerRaw, 'svcUserId');
  const baseOwner = env.current?.owner_id ?? env.actingUserId;
  const requestedOwner = typeof ownerText === 'string' && INT_RE.test(ownerText) ? Number(ownerText) : baseOwner;

  for (const row of env.metadata) {
    const spec: AttributeSpec | undefined = ATTRIBUTE_BY_NAME.get(row.name);
    const name = row.name;
    const raw = spec ? readParam(input, spec) : input[name];
    const present = raw !== undefined;
    if (present && env.mode === 'edit' && row.readonly === 1) throw fieldFailure(name, 'readonly', `${name} is read-only`);
    const text = present ? asText(raw, name) : undefined;
    if (text instanceof Error) throw text;

    if (text === undefined || text === null) {
      const creating = env.mode !== 'edit';
      if (row.required === 1 && (creating ? row.default_value === null : present)) {
        throw fieldFailure(name, 'required', `${name} is required`);
      }
      if (creating && !present && row.default_value !== null) {
        values[name] = row.default_value;
      } else if (present) {
        values[name] = null;
      }
      continue;
    }

    const maxLength = spec?.maxLength ?? 255;
    if (text.length > maxLength) throw fieldFailure(name, 'invalid', `${name} must be at most ${maxLength} characters`);
    const invalid = (why: string) => fieldFailure(name, 'invalid', `${name} ${why}`);
    switch (row.type) {
      case 'phone':
        if (!isPhone(text)) throw invalid('is not a valid mobile number');
        break;
      case 'fixedPhone':
        if (!FIXED_PHONE_RE.test(text)) throw invalid('is not a valid landline number');
        break;
      case 'email':
        if (!isEmail(text)) throw invalid('is not a valid e-mail address');
        break;
      case 'option':
        if (!optionValues(row).has(text)) throw invalid(`must be one of the options of ${name}`);
        break;
      case 'owner': {
        if (!INT_RE.test(text)) throw invalid('must be a platform user id');
        const owner = Number(text);
        if (owner !== baseOwner || env.mode !== 'edit') {
          if (owner !== env.actingUserId && !env.mayAssignOthers) {
            throw forbidden('Only the project Master or an Admin may assign a customer to another member');
          }
          if (!(await env.isActiveMember(owner))) throw invalid('is not a member of this project');
        }
        break;
      }
      case 'member':
        if (!INT_RE.test(text) || !(await env.isActiveMember(Number(text)))) throw invalid('is not a member of this project');
        break;
      case 'group':
        if (!(await env.isGroupOf(text, requestedOwner))) throw invalid("is not one of the owner's groups");
        break;
      default:
        break;
    }
    if (spec?.int && !INT_RE.test(text)) throw invalid('must be a whole number');
    const stored = spec?.int ? Number(text) : text;
    if (row.is_unique === 1 && spec && (await env.isTaken(spec.column, stored, env.current?.id))) {
      throw fieldFailure(name, 'unique', `another customer already has this ${name}`);
    }
    if (spec) values[name] = stored;
    else ext[name] = text;
  }

  const out: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(values)) {
    const spec = ATTRIBUTE_BY_NAME.get(name);
    if (!spec) continue;
    out[spec.column] = spec.int && value !== null ? Number(value) : value;
  }
  for (const spec of PLAIN_FIELDS) {
    const raw = readParam(input, spec);
    if (raw === undefined) continue;
    const text = asText(raw, spec.name);
    if (text instanceof Error) throw text;
    if (text !== null && text.length > spec.maxLength) throw fieldFailure(spec.name, 'invalid', `${spec.name} is too long`);
    out[spec.column] = text;
  }
  if (Object.keys(ext).length > 0) out.ext = JSON.stringify(ext);
  if (typeof out.email === 'string') out.email_lower = out.email.toLowerCase();
  else if (out.email === null) out.email_lower = null;
  // The owner column is set by the service (transfers have their own rules); keep it out of values.
  const ownerId = typeof out.owner_id === 'number' ? out.owner_id : baseOwner;
  delete out.owner_id;
  return { values: out as Updateable<CustomersTable>, ownerId, ownerChanged: ownerId !== baseOwner };
}
