import type { Kysely } from 'kysely';
import type { CustomerFieldValuesTable, Database } from '../../db/index.ts';
import { badRequest, failure, fieldFailure, forbidden } from '../../http/errors.ts';
import type { Actor } from '../access/service.ts';
import type { AuditRecorder } from '../audit/service.ts';
import type { MetadataRow, MetadataService } from '../metadata/service.ts';
import { ATTRIBUTES, ATTRIBUTE_BY_NAME, PLAIN_FIELDS } from './attributes.ts';
import { duplicateValues } from './writes.repository.ts';

/**
 * A project's custom customer fields (docs/metadata.md "Editable fields"): their definitions are
 * metadata rows; their values travel in a customer's `exts` (and as their own keys in bodies), are
 * kept in the `ext` JSON column as the response shows them, and one row per value in
 * `customer_field_values` for uniqueness, search and the duplicate report.
 */

/** A custom field's stored value: text (text, date, option), a number, or a multi-option's values. */
export type FieldValue = string | number | string[];

export const CUSTOM_TYPES = ['text', 'number', 'date', 'option', 'multiOption'] as const;
export type CustomType = (typeof CUSTOM_TYPES)[number];
export const CUSTOM_TEXT_MAX = 255;
export const NUMBER_RE = /^-?\d{1,15}(\.\d{1,6})?$/;
export const DATE_RE = /^\d{4}-\d{2}-\d{2}$/;
const NAME_RE = /^[A-Za-z][A-Za-z0-9_]{0,63}$/;
const MAX_OPTIONS = 200;
const MAX_FIELDS = 200;
/** Duplicate values a refusal to make a field unique names (each with its customers). */
const DUPLICATES_SHOWN = 20;

/** Names a custom field may not take: the built-in attributes, their parameters, and the keys of a Customer. */
const RESERVED = new Set(
  [
    ...ATTRIBUTES.flatMap((a) => [a.name, a.param]),
    ...PLAIN_FIELDS.flatMap((a) => [a.name, a.param]),
    ...['id', 'appId', 'app_id', 'allocationData', 'status', 'whetherMerge', 'mergedCustomerId', 'createdAt', 'updatedAt'],
    ...['isNew', 'groupName', 'newCount', 'exts', 'ext', 'customer_group_id', 'keyword', 'start_index', 'count', 'condition'],
  ].map((n) => n.toLowerCase()),
);

export function isCalendarDate(s: string): boolean {
  const [y, m, d] = s.split('-').map(Number) as [number, number, number];
  const t = new Date(Date.UTC(y, m - 1, d));
  return y >= 1 && t.getUTCFullYear() === y && t.getUTCMonth() === m - 1 && t.getUTCDate() === d;
}

interface OptionItem {
  value: string;
  label: string;
}

function parseOptions(row: MetadataRow): OptionItem[] {
  try {
    const parsed = JSON.parse(row.option_values ?? '[]') as unknown;
    return Array.isArray(parsed) ? (parsed as OptionItem[]) : [];
  } catch {
    return [];
  }
}

/** Parsed once per metadata row read (a batch of a list or an import validates many inputs against the same rows). */
const optionSets = new WeakMap<MetadataRow, Set<string>>();

export function optionValueSet(row: MetadataRow): Set<string> {
  let values = optionSets.get(row);
  if (values === undefined) {
    values = new Set(parseOptions(row).map((o) => String(o.value)));
    optionSets.set(row, values);
  }
  return values;
}

/** A customer's stored custom values (`ext`), {} for none or unreadable text. */
export function parseExt(text: string | null): Record<string, FieldValue> {
  if (text === null || text === '') return {};
  try {
    const parsed: unknown = JSON.parse(text);
    return parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed) ? (parsed as Record<string, FieldValue>) : {};
  } catch {
    return {};
  }
}

/** A custom field's value in a request: its own key, else the key in `exts` (an object, or its JSON text in a form). */
export function readCustom(input: Record<string, unknown>, name: string): unknown {
  const own = input[name];
  if (Object.hasOwn(input, name) && own !== undefined && own !== null) return own;
  let exts = input.exts;
  if (typeof exts === 'string') {
    try {
      exts = JSON.parse(exts);
    } catch {
      throw fieldFailure('exts', 'invalid', 'exts must be a JSON object of custom field values');
    }
  }
  if (exts === undefined || exts === null) return undefined;
  if (typeof exts !== 'object' || Array.isArray(exts))
    throw fieldFailure('exts', 'invalid', 'exts must be an object of custom field values');
  const v = (exts as Record<string, unknown>)[name];
  return Object.hasOwn(exts, name) && v !== null ? v : undefined;
}

/** The stored `ext` after applying set and cleared fields to the current one (null when empty). */
export function mergedExt(current: string | null, fields: Record<string, FieldValue | null>): string | null {
  const ext = parseExt(current);
  for (const [name, value] of Object.entries(fields)) {
    if (value === null) delete ext[name];
    else ext[name] = value;
  }
  return Object.keys(ext).length === 0 ? null : JSON.stringify(ext);
}

/** The value rows of a customer's set fields (one per value; a multi-option has several). */
export function fieldValueRows(appId: string, customerId: string, fields: Record<string, FieldValue | null>): CustomerFieldValuesTable[] {
  const rows: CustomerFieldValuesTable[] = [];
  for (const [name, value] of Object.entries(fields)) {
    if (value === null) continue;
    for (const v of Array.isArray(value) ? value : [String(value)]) {
      rows.push({ app_id: appId, customer_id: customerId, name, value: v, value_lower: v.toLowerCase() });
    }
  }
  return rows;
}

/** A field definition as the endpoints take it (form fields or JSON). */
export interface FieldInput {
  name?: unknown;
  label?: unknown;
  title?: unknown;
  type?: unknown;
  required?: unknown;
  unique?: unknown;
  readonly?: unknown;
  searchable?: unknown;
  visiable?: unknown;
  options?: unknown;
  index?: unknown;
}

function flag(input: FieldInput, key: keyof FieldInput): boolean | undefined {
  const v = input[key];
  if (v === undefined || v === null || v === '') return undefined;
  if (v === true || v === 1 || v === '1' || v === 'true') return true;
  if (v === false || v === 0 || v === '0' || v === 'false') return false;
  throw fieldFailure(key, 'invalid', `${key} must be true or false (1 or 0)`);
}

function labelOf(input: FieldInput): string | undefined {
  const v = input.label ?? input.title;
  if (v === undefined || v === null) return undefined;
  const t = typeof v === 'string' ? v.trim() : '';
  if (t.length < 1 || t.length > 64) throw fieldFailure('label', 'invalid', 'label must be 1 to 64 characters');
  return t;
}

function indexOf(input: FieldInput): number | undefined {
  const v = input.index;
  if (v === undefined || v === null || v === '') return undefined;
  const n = typeof v === 'number' ? v : typeof v === 'string' && /^\d{1,4}$/.test(v) ? Number(v) : NaN;
  if (!Number.isInteger(n) || n < 0) throw fieldFailure('index', 'invalid', 'index must be a position, 0 or more');
  return n;
}

/** Options as given: an array (or its JSON text) of {value, label} or of plain values; in their order. */
function optionsOf(input: FieldInput, intValues: boolean): OptionItem[] | undefined {
  let v = input.options;
  if (v === undefined || v === null) return undefined;
  const bad = (why: string) => fieldFailure('options', 'invalid', `options ${why}`);
  if (typeof v === 'string') {
    try {
      v = JSON.parse(v);
    } catch {
      throw bad('must be a JSON array of {"value", "label"}');
    }
  }
  if (!Array.isArray(v) || v.length === 0 || v.length > MAX_OPTIONS) throw bad(`must be an array of 1 to ${MAX_OPTIONS} options`);
  const seen = new Set<string>();
  return v.map((o: unknown) => {
    const item = typeof o === 'object' && o !== null ? (o as Record<string, unknown>) : { value: o };
    const value = typeof item.value === 'string' || typeof item.value === 'number' ? String(item.value).trim() : '';
    const labelRaw = item.label ?? value;
    const label = typeof labelRaw === 'string' || typeof labelRaw === 'number' ? String(labelRaw).trim() : '';
    if (value === '' || value.length > 64 || value.includes(',')) throw bad('values must be 1 to 64 characters, without commas');
    if (label === '' || label.length > 64) throw bad('labels must be 1 to 64 characters');
    if (intValues && !/^-?\d{1,9}$/.test(value)) throw bad('of this field must be whole numbers (it is stored as one)');
    if (seen.has(value)) throw bad(`name "${value}" twice`);
    seen.add(value);
    return { value, label };
  });
}

/** Renumbers the form so that `name` sits at `position` (the end when beyond it). */
async function placeAt(
  trx: Kysely<Database>,
  metadata: MetadataService,
  appId: string,
  rows: MetadataRow[],
  name: string,
  position: number,
) {
  const order = rows.filter((r) => r.hidden !== 1 && r.name !== name).map((r) => r.name);
  order.splice(Math.min(position, order.length), 0, name);
  order.push(...rows.filter((r) => r.hidden === 1 && r.name !== name).map((r) => r.name));
  const byName = new Map(rows.map((r) => [r.name, r]));
  for (const [i, n] of order.entries()) {
    if (byName.get(n)?.sort_index !== i) await metadata.update(trx, appId, n, { sort_index: i });
  }
}

/** The actor's project and user id, for Master or Admin only (the refusal `access.manager` gives). */
function managing(actor: Actor): { appId: string; callerId: number } {
  if (!actor.isManager) throw forbidden('Only the project Master or an Admin may do this');
  return { appId: actor.app.id, callerId: actor.userId };
}

/** The editing of a project's fields (Master and Admins): create, edit, remove, each for the actor the auth hook resolved. */
export function createFieldOps(db: Kysely<Database>, metadata: MetadataService, audit: AuditRecorder) {
  /** Values live customers of the project share in a field about to become unique. */
  async function refuseDuplicates(trx: Kysely<Database>, appId: string, row: MetadataRow): Promise<void> {
    const spec = ATTRIBUTE_BY_NAME.get(row.name);
    const dups = await duplicateValues(trx, appId, spec ? spec.column : `field:${row.name}`, DUPLICATES_SHOWN);
    if (dups.length === 0) return;
    const named = dups
      .slice(0, 5)
      .map((d) => `"${d.value}" (${d.customerIds.join(', ')})`)
      .join('; ');
    throw failure('field_duplicates', `${row.name} cannot be made unique: ${named}${dups.length > 5 ? '; …' : ''}`, { duplicates: dups });
  }

  async function fieldItem(trx: Kysely<Database>, appId: string, name: string) {
    const rows = await metadata.rowsForEdit(trx, appId);
    return metadata.toItem(rows.find((r) => r.name === name) as MetadataRow);
  }

  async function editable(trx: Kysely<Database>, appId: string, name: string) {
    const rows = await metadata.rowsForEdit(trx, appId);
    const row = rows.find((r) => r.name === name && r.hidden !== 1);
    if (!row) throw failure('field_not_found', `the project has no customer field ${name.slice(0, 64)}`);
    return { rows, row };
  }

  return {
    async create(actor: Actor, input: FieldInput) {
      const { appId, callerId } = managing(actor);
      const name = typeof input.name === 'string' ? input.name.trim() : '';
      if (!NAME_RE.test(name)) throw fieldFailure('name', 'invalid', 'name must be a letter then up to 63 letters, digits or _');
      if (RESERVED.has(name.toLowerCase())) throw failure('field_exists', `${name} is a built-in attribute or a reserved name`);
      const type = input.type;
      if (typeof type !== 'string' || !(CUSTOM_TYPES as readonly string[]).includes(type)) {
        throw fieldFailure('type', 'invalid', `type must be one of ${CUSTOM_TYPES.join(', ')}`);
      }
      const label = labelOf(input);
      if (label === undefined) throw fieldFailure('label', 'required', 'label is required');
      const withOptions = type === 'option' || type === 'multiOption';
      const options = optionsOf(input, false);
      if (withOptions && !options) throw fieldFailure('options', 'required', `a field of type ${type} needs options`);
      if (!withOptions && options) throw fieldFailure('options', 'invalid', `a field of type ${type} has no options`);
      const unique = flag(input, 'unique') ?? false;
      if (unique && type === 'multiOption') throw fieldFailure('unique', 'invalid', 'a multi-option field cannot be unique');
      const position = indexOf(input);
      return db.transaction().execute(async (trx) => {
        const rows = await metadata.rowsForEdit(trx, appId);
        const existing = rows.find((r) => r.name.toLowerCase() === name.toLowerCase());
        // A removed field of the same name and type comes back, with its kept values.
        if (existing && (existing.hidden !== 1 || existing.type !== type || existing.name !== name)) {
          throw failure('field_exists', `the project already has a field ${existing.name}`);
        }
        if (!existing && rows.filter((r) => r.is_ext === 1).length >= MAX_FIELDS) {
          throw badRequest(`a project has at most ${MAX_FIELDS} custom fields`);
        }
        const def = {
          type,
          title: label,
          is_ext: 1,
          is_unique: unique ? 1 : 0,
          required: flag(input, 'required') ? 1 : 0,
          visiable: flag(input, 'visiable') === false ? 0 : 1,
          default_value: null,
          option_values: options ? JSON.stringify(options) : null,
          readonly: flag(input, 'readonly') ? 1 : 0,
          searchable: flag(input, 'searchable') ? 1 : 0,
          hidden: 0,
        };
        const end = rows.reduce((max, r) => Math.max(max, r.sort_index + 1), 0);
        if (existing) await metadata.update(trx, appId, name, { ...def, sort_index: end });
        else await metadata.insert(trx, { app_id: appId, name, sort_index: end, ...def });
        const after = await metadata.rowsForEdit(trx, appId);
        if (unique) await refuseDuplicates(trx, appId, after.find((r) => r.name === name) as MetadataRow);
        if (position !== undefined) await placeAt(trx, metadata, appId, after, name, position);
        await audit(trx, { appId, actorId: callerId, action: 'field.create', targetType: 'field', targetId: name, detail: { type } });
        return fieldItem(trx, appId, name);
      });
    },

    async update(actor: Actor, edit: { name: string; input: FieldInput }) {
      const { appId, callerId } = managing(actor);
      const { name, input } = edit;
      return db.transaction().execute(async (trx) => {
        const { rows, row } = await editable(trx, appId, name);
        const spec = ATTRIBUTE_BY_NAME.get(name);
        const builtin = row.is_ext !== 1 && spec !== undefined;
        if (input.type !== undefined && input.type !== row.type) throw fieldFailure('type', 'invalid', "a field's type cannot change");
        const patch: Record<string, unknown> = {};
        const label = labelOf(input);
        if (label !== undefined) patch.title = label;
        const required = flag(input, 'required');
        if (required !== undefined) patch.required = required ? 1 : 0;
        const unique = flag(input, 'unique');
        const readonly = flag(input, 'readonly');
        const searchable = flag(input, 'searchable');
        if (builtin) {
          if (readonly !== undefined && readonly !== (row.readonly === 1)) throw failure('field_builtin', `${name}: readonly is fixed`);
          if (searchable !== undefined) throw failure('field_builtin', `${name}: built-in fields are searched by keyword already`);
          if (unique !== undefined && unique !== (row.is_unique === 1) && !['text', 'phone', 'fixedPhone', 'email'].includes(row.type)) {
            throw failure('field_builtin', `${name} cannot be made unique`);
          }
        } else {
          if (readonly !== undefined) patch.readonly = readonly ? 1 : 0;
          if (searchable !== undefined) patch.searchable = searchable ? 1 : 0;
          if (unique && row.type === 'multiOption') throw fieldFailure('unique', 'invalid', 'a multi-option field cannot be unique');
        }
        if (unique !== undefined) patch.is_unique = unique ? 1 : 0;
        const visiable = flag(input, 'visiable');
        if (visiable !== undefined) patch.visiable = visiable ? 1 : 0;
        const options = optionsOf(input, spec?.int === true);
        if (options) {
          if (row.type !== 'option' && row.type !== 'multiOption') throw fieldFailure('options', 'invalid', `${name} has no options`);
          if (row.default_value !== null && !options.some((o) => o.value === row.default_value)) {
            throw fieldFailure('options', 'invalid', `options must keep the default value "${row.default_value}"`);
          }
          patch.option_values = JSON.stringify(options);
        }
        if (Object.keys(patch).length > 0) await metadata.update(trx, appId, name, patch);
        if (patch.is_unique === 1 && row.is_unique !== 1) await refuseDuplicates(trx, appId, row);
        const position = indexOf(input);
        if (position !== undefined) await placeAt(trx, metadata, appId, rows, name, position);
        await audit(trx, { appId, actorId: callerId, action: 'field.edit', targetType: 'field', targetId: name, detail: patch });
        return fieldItem(trx, appId, name);
      });
    },

    async remove(actor: Actor, field: { name: string }): Promise<true> {
      const { appId, callerId } = managing(actor);
      const { name } = field;
      await db.transaction().execute(async (trx) => {
        const { row } = await editable(trx, appId, name);
        if (row.is_ext !== 1 && ATTRIBUTE_BY_NAME.has(name)) throw failure('field_builtin', `${name} is built in and cannot be removed`);
        await metadata.update(trx, appId, name, { hidden: 1 });
        await audit(trx, { appId, actorId: callerId, action: 'field.remove', targetType: 'field', targetId: name });
      });
      return true;
    },
  };
}
