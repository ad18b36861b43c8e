import type { CustomersTable } from '../../db/index.ts';
import { isEmail } from '../../lib/formats.ts';
import { isMobileNumber, phoneKey } from '../../lib/phones.ts';
import { ATTRIBUTE_BY_NAME, readParam } from './attributes.ts';
import type { CustomerRow } from './mapper.ts';
import { IMPORT_CREATE_WAY } from './records.ts';

/**
 * How an import's rows are matched with stored customers and with each other (docs/data-operations.md):
 * pure steps of the import service's batch, apart from the reads and writes.
 */

/** What an import does with a row whose unique attributes name a live customer (docs/data-operations.md). */
export type DuplicatePolicy = 'skip' | 'update' | 'merge';

/** One data row of an import: its attributes by name, and its number in the file. */
export interface ImportItem {
  input: Record<string, unknown>;
  row: number;
}

/** A row that makes a new customer, with the later rows of the file that duplicate it. */
export type FreshItem = ImportItem & { extra: ImportItem[] };

/** A row that updates a stored customer. */
export interface ImportUpdate {
  item: ImportItem;
  current: CustomerRow;
}

export interface DuplicateKey {
  name: string;
  param: string;
  /** The column matched: a mobile number by its key (E.164), an e-mail lower-cased, another attribute as stored. */
  column: 'phone_key' | 'email_lower' | keyof CustomersTable;
  /** The project's region: what a mobile number written without its country code means. */
  region: string;
}

/** A value nobody would type: joins a column and a value into one map key. */
const SEP = '\u0000';

export const blank = (v: unknown) => v === undefined || v === null || (typeof v === 'string' && v.trim() === '');

export function dropBlank(input: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(input).filter(([, v]) => !blank(v)));
}

/**
 * An import's duplicate key: the project's unique attributes; without any, the mobile number and then
 * the e-mail. A mobile number matches by its key, however the file and the stored customer write it.
 */
export function duplicateKeys(meta: { name: string; is_unique: number }[], region: string): DuplicateKey[] {
  const columnOf = (column: keyof CustomersTable) =>
    column === 'email' ? ('email_lower' as const) : column === 'phone' ? ('phone_key' as const) : column;
  const unique = meta
    .filter((m) => m.is_unique === 1)
    .map((m) => ATTRIBUTE_BY_NAME.get(m.name))
    .filter((spec): spec is NonNullable<typeof spec> => spec !== undefined)
    .map((spec) => ({ name: spec.name, param: spec.param, column: columnOf(spec.column), region }));
  if (unique.length > 0) return unique;
  return [
    { name: 'phone', param: 'phone', column: 'phone_key', region },
    { name: 'email', param: 'email', column: 'email_lower', region },
  ];
}

/** A row's value of a duplicate key, as stored; null when it names nobody. */
export function keyValue(input: Record<string, unknown>, key: DuplicateKey): string | null {
  const raw = readParam(input, key);
  if (raw === undefined || raw === null) return null;
  const text = String(raw).trim();
  // A malformed mobile number or e-mail names nobody: its row fails validation on its own.
  if (text === '' || (key.column === 'phone_key' && !isMobileNumber(text, key.region)) || (key.column === 'email_lower' && !isEmail(text)))
    return null;
  if (key.column === 'phone_key') return phoneKey(text, key.region);
  return key.column === 'email_lower' ? text.toLowerCase() : text;
}

/** The map key of a stored customer's (or a row's) value of a duplicate key. */
export const matchKey = (key: DuplicateKey, value: unknown) => `${key.column}${SEP}${String(value)}`;

/**
 * The rows sorted by what they match: a stored customer (`updates`, or skipped), an earlier row of the
 * batch (folded into it, or skipped), or nothing (`fresh`: a new customer). Returns the skipped count.
 */
export function planImport(
  items: ImportItem[],
  keys: DuplicateKey[],
  stored: Map<string, CustomerRow>,
  policy: DuplicatePolicy,
): { fresh: FreshItem[]; updates: ImportUpdate[]; skipped: number } {
  const fresh: FreshItem[] = [];
  const claimed = new Map<string, FreshItem>();
  const updates: ImportUpdate[] = [];
  let skipped = 0;
  for (const item of items) {
    const found = keys.map((key) => {
      const value = keyValue(item.input, key);
      return value === null ? null : matchKey(key, value);
    });
    let existing: CustomerRow | undefined;
    let earlier: FreshItem | undefined;
    for (const k of found) {
      if (k === null) continue;
      existing ??= stored.get(k);
      earlier ??= claimed.get(k);
    }
    if (existing) {
      if (policy === 'skip') skipped += 1;
      else updates.push({ item, current: existing });
    } else if (earlier) {
      // A duplicate of an earlier row of the file: skipped, or folded into that row before it is written.
      if (policy === 'skip') skipped += 1;
      else earlier.extra.push(item);
    } else {
      const entry = { ...item, extra: [] };
      fresh.push(entry);
      for (const k of found) if (k !== null) claimed.set(k, entry);
    }
  }
  return { fresh, updates, skipped };
}

/** A row's input as the import writes it: createWay 7, and the import's group where the row names none. */
export function importInput(input: Record<string, unknown>, groupId: string | undefined): Record<string, unknown> {
  const out: Record<string, unknown> = { ...input };
  delete out.createWay;
  out.create_way = String(IMPORT_CREATE_WAY);
  if (groupId !== undefined && blank(readParam(out, { param: 'group_id', name: 'groupId' }))) out.group_id = groupId;
  return out;
}

/** A new customer's row with the later rows folded in: `update` lets their non-blank values win, `merge` only fills blanks. */
export function combinedInput(entry: FreshItem, policy: DuplicatePolicy): Record<string, unknown> {
  let input = entry.input;
  for (const later of entry.extra) {
    input =
      policy === 'update'
        ? { ...input, ...Object.fromEntries(Object.entries(later.input).filter(([, v]) => !blank(v))) }
        : { ...Object.fromEntries(Object.entries(later.input).filter(([, v]) => !blank(v))), ...dropBlank(input) };
  }
  return input;
}
