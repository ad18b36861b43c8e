import type { PreparedReader, BehaviourLogsTable, CustomersTable, Database } from '../../db/index.ts';
import type { Insertable, Kysely, Updateable } from 'kysely';
import type { AppContext } from '../../context.ts';
import { type EventMessage, type EventType, RECORD_BODY, eventRows, writeEvents } from '../../events/outbox.ts';
import { AppError, badRequest, failure, forbidden } from '../../http/errors.ts';
import type { Page } from '../../http/paging.ts';
import type { AuditRecorder } from '../audit/service.ts';
import type { AccessService, Membership } from '../access/service.ts';
import type { GroupsService } from '../groups/service.ts';
import type { MembersService } from '../members/service.ts';
import type { MetadataService } from '../metadata/service.ts';
import { type CustomerListItem, type CustomerResponse, type CustomerRow, toCustomer } from './mapper.ts';
import {
  type CustomerFilter,
  type CustomerListRow,
  type CustomerScope,
  type MailRecipient,
  type MailRecipientQuery,
  type UniqueKey,
  createCustomerWrites,
  customersRepository as repo,
  listExtras,
  replaceFieldValues,
  resetFieldValues,
} from './repository.ts';
import { ATTRIBUTES, ATTRIBUTE_BY_NAME, readParam } from './attributes.ts';
import { type ValidatedCustomer, type ValidationEnv, type ValidationMode, validateCustomer } from './validation.ts';
import { type FieldValue, createFieldOps, fieldValueRows, mergedExt, parseExt } from './fields.ts';
import type { CustomerFieldValuesTable } from '../../db/index.ts';
import { timeOrderedUuid } from '../../lib/ids.ts';
import { isEmail, isPhone } from '../../lib/formats.ts';

// Pure helpers other modules use on customer rows they read themselves (merges, erasure).
export { toCustomer } from './mapper.ts';
export type { CustomerResponse, CustomerRow } from './mapper.ts';
export type { MailRecipient, MailRecipientQuery } from './repository.ts';

export const DEFAULT_CREATE_WAY = 6;
/** createWay of a customer a visitor's form made (docs/links.md). */
export const FORM_CREATE_WAY = 5;

/** What the public viewer knows of a customer: who it is and whose. */
export interface ViewerCustomer {
  id: string;
  name: string | null;
  ownerId: number;
}
const MAX_TRANSFER_ITEMS = 1000;
/** createWay of an imported customer: batch upload (docs/interface.md §9). */
export const IMPORT_CREATE_WAY = 7;

/** What an import does with a row whose unique attributes name a live customer (docs/data-operations.md). */
export type DuplicatePolicy = 'skip' | 'update' | 'merge';

/** One data row of an import: its attributes by name, and its number in the file. */
export interface ImportItem {
  input: Record<string, unknown>;
  row: number;
}

export interface ImportOptions {
  /** The acting member: owner of rows that name none. */
  ownerId: number;
  /** Master/Admin (or the CLI): rows may name another owner. */
  mayAssignOthers: boolean;
  /**
   * The one owner whose customers a row may match (a Sales member's import: the customers they can
   * read); null: every customer of the project (Master/Admin, the CLI).
   */
  matchOwnerId: number | null;
  /** The group of rows that name none. */
  groupId?: string | undefined;
  policy: DuplicatePolicy;
  /** Validate and count, write nothing. */
  dryRun: boolean;
  now: number;
}

/** What a batch of an import did; `problems` are the rows that failed, with the reason. */
export interface ImportOutcome {
  created: number;
  updated: number;
  skipped: number;
  problems: { row: number; code: string; reason: string }[];
}

/** Attributes a row may bring to a customer that exists: not those only creating sets. */
const blank = (v: unknown) => v === undefined || v === null || (typeof v === 'string' && v.trim() === '');

export interface CreateOptions {
  /** The acting member: owner unless the input names another. */
  ownerId: number;
  /** Keep a producer's id (ingestion); otherwise a new UUID. */
  id?: string;
  createWay?: number;
  now: number;
  validate: Exclude<ValidationMode, 'edit'>;
  /** Master/Admin or ingestion: may assign to another member (default: true for ingestion). */
  mayAssignOthers?: boolean;
}

/** One customer of a list to create: its input, acting member, and (ingestion) the producer's id. */
export interface NewCustomer {
  input: Record<string, unknown>;
  ownerId: number;
  id?: string | undefined;
}

/** Options of a list of customers to create: those of one, less what each item names itself. */
type ListOptions = Omit<CreateOptions, 'ownerId' | 'id'>;

/** Validates one input for an acting member, asking `isTaken` about unique values. */
type BatchValidate = ((
  input: Record<string, unknown>,
  ownerId: number,
  isTaken: ValidationEnv['isTaken'],
) => Promise<ValidatedCustomer>) & {
  /** Some attribute is unique: only then do items ask about stored values. */
  checksUnique?: boolean;
};

export interface TransferItem {
  customerId?: unknown;
  srouceGroupId?: unknown;
  srouceSvcUserId?: unknown;
}

const customerNotFound = () => failure('customer_not_found');

/**
 * A customer behaviour record (userType 1) of the customer itself, whose content is its Customer
 * object: its `create` record, and a merge's `customer_merged` (docs/interface.md §12).
 */
export function customerRecord(
  appId: string,
  row: CustomerRow,
  action: 'create' | 'customer_merged',
  customer: CustomerResponse,
  now: number,
): Insertable<BehaviourLogsTable> {
  return {
    id: timeOrderedUuid(),
    app_id: appId,
    customer_id: row.id,
    svc_user_id: String(row.owner_id),
    deal_user_id: row.deal_user_id,
    customer_name: row.name,
    action,
    params: null,
    remote_duration: null,
    description: null,
    when_at: now,
    content: JSON.stringify(customer),
    client_name: null,
    client_version: null,
    os: null,
    os_version: null,
    net: null,
    ip: null,
    location: null,
    province: null,
    city: null,
    user_type: 1,
    created_at: now,
  };
}

/** Customers: metadata-validated create/edit, lists, search, transfers, soft delete (docs/interface.md §9). */
export function createCustomersService(
  ctx: AppContext,
  access: AccessService,
  metadata: MetadataService,
  groups: GroupsService,
  members: MembersService,
  audit: AuditRecorder,
) {
  const db: Kysely<Database> = ctx.database.db;
  const reader = ctx.database.reader;
  const clock = ctx.clock;
  const writes = createCustomerWrites(ctx.database.features);

  function customerEvent(type: EventType, row: CustomerRow, whetherMerge = 0): EventMessage {
    return { event_type: type, domainType: 'Customer', domainId: row.id, body: toCustomer(row, clock, whetherMerge) };
  }

  function envFor(trx: Kysely<Database>, appId: string) {
    return {
      isActiveMember: (userId: number) => members.isActiveMember(trx, appId, userId),
      isGroupOf: async (groupId: string, ownerId: number) => (await groups.ownerOf(trx, appId, groupId)) === ownerId,
      isTaken: (key: UniqueKey, value: string | number, exceptId: string | undefined) => repo.isTaken(trx, appId, key, value, exceptId),
    };
  }

  /** The customer if the caller may see it; customer_not_found otherwise (missing or invisible alike). */
  function visible(m: Membership, row: CustomerRow | undefined): CustomerRow {
    if (!row || row.app_id !== m.app.id || (!m.isManager && row.owner_id !== m.userId)) throw customerNotFound();
    return row;
  }

  /** The path's acting member: the caller, or (for Master/Admin) another active member. */
  async function actingMember(appId: string, callerId: number, pathUserId: string): Promise<{ m: Membership; acting: number }> {
    const m = await access.membership(appId, callerId);
    if (!/^\d{1,10}$/.test(pathUserId)) throw badRequest("Invalid path parameter 'svc-user-id': must be a platform user id");
    const acting = Number(pathUserId);
    if (acting !== callerId) {
      if (!m.isManager) throw forbidden('Sales members act only as themselves');
      if (!(await members.isActiveMember(db, appId, acting)))
        throw failure('svc_user_id_invalid', 'svc-user-id is not a member of this project');
    }
    return { m, acting };
  }

  async function withExtras(appId: string, rows: CustomerListRow[]): Promise<CustomerListItem[]> {
    const groupIds = [...new Set(rows.map((r) => r.group_id).filter((g): g is string => g !== null))];
    const names = await groups.names(appId, groupIds);
    return rows.map((r) => {
      const { whetherMerge, newCount } = listExtras(r);
      // Added to the Customer object rather than spread into a new one: a 43-field spread made
      // V8 build a slow dictionary object, ~12 µs a row when profiled, against ~1.5 µs.
      const item = toCustomer(r, clock, whetherMerge) as CustomerListItem;
      item.isNew = r.is_new;
      item.groupName = r.group_id ? (names.get(r.group_id) ?? '') : '';
      item.newCount = newCount;
      return item;
    });
  }

  /** Outside a transaction pass `reader`; inside one, `ctx.database.readerFor(trx)`. */
  async function whetherMerge(from: PreparedReader | Kysely<Database>, row: CustomerRow): Promise<number> {
    const r = 'all' in from ? from : ctx.database.readerFor(from);
    return (await repo.duplicates(r, row.app_id, [row])).has(row.id) ? 1 : 0;
  }

  /**
   * Validation of a list's items inside its transaction. Members and groups do not change during
   * the list: each distinct question about them is asked once.
   */
  async function batchValidator(trx: Kysely<Database>, appId: string, opts: ListOptions): Promise<BatchValidate> {
    const meta = await metadata.rows(trx, appId);
    const env = envFor(trx, appId);
    const memberAnswers = new Map<number, Promise<boolean>>();
    const groupAnswers = new Map<string, Promise<boolean>>();
    const isActiveMember = (userId: number) => {
      let answer = memberAnswers.get(userId);
      if (!answer) memberAnswers.set(userId, (answer = env.isActiveMember(userId)));
      return answer;
    };
    const isGroupOf = (groupId: string, ownerId: number) => {
      const key = `${groupId}\u0000${ownerId}`;
      let answer = groupAnswers.get(key);
      if (!answer) groupAnswers.set(key, (answer = env.isGroupOf(groupId, ownerId)));
      return answer;
    };
    const validate: BatchValidate = (input, ownerId, isTaken) =>
      validateCustomer(input, {
        mode: opts.validate,
        metadata: meta,
        actingUserId: ownerId,
        mayAssignOthers: opts.mayAssignOthers ?? opts.validate === 'ingest',
        isActiveMember,
        isGroupOf,
        isTaken,
      });
    validate.checksUnique = meta.some((m) => m.is_unique === 1);
    return validate;
  }

  /**
   * Duplicate checks, stored side: a first pass collects every value an item would check for
   * uniqueness, and one query per column answers them all. The values live customers already have.
   */
  async function takenValues(
    trx: Kysely<Database>,
    appId: string,
    items: NewCustomer[],
    validate: BatchValidate,
  ): Promise<Map<UniqueKey, Set<string>>> {
    const asked = new Map<UniqueKey, Set<string | number>>();
    // No unique attribute: no item asks, and the pass would only validate every item twice.
    if (validate.checksUnique === false) return new Map();
    for (const it of items) {
      await validate(it.input, it.ownerId, async (column, value) => {
        let values = asked.get(column);
        if (!values) asked.set(column, (values = new Set()));
        values.add(value);
        return false;
      }).catch((err: unknown) => {
        if (!(err instanceof AppError)) throw err;
      });
    }
    const taken = new Map<UniqueKey, Set<string>>();
    for (const [column, values] of asked) {
      taken.set(column, await repo.liveValues(trx, appId, column, [...values]));
    }
    return taken;
  }

  /**
   * Validation, in order: each item checked against the stored values and those of the items
   * before it (added to `taken` as it goes), and made a complete row. The first invalid item
   * stops the list.
   */
  async function validatedRows(
    appId: string,
    items: NewCustomer[],
    validate: BatchValidate,
    taken: Map<UniqueKey, Set<string>>,
    opts: ListOptions,
    failures?: { position: number; error: AppError }[],
  ): Promise<{ rows: CustomerRow[]; fieldValues: CustomerFieldValuesTable[] } | { failed: { position: number; error: AppError } }> {
    const rows: CustomerRow[] = [];
    const fieldValues: CustomerFieldValuesTable[] = [];
    const now = opts.now;
    for (let position = 0; position < items.length; position += 1) {
      const it = items[position] as NewCustomer;
      let v: ValidatedCustomer;
      try {
        v = await validate(it.input, it.ownerId, async (column, value) => taken.get(column)?.has(String(value)) ?? false);
      } catch (err) {
        if (!(err instanceof AppError)) throw err;
        // An import goes on past an invalid row (it is reported); everyone else stops at it.
        if (failures === undefined) return { failed: { position, error: err } };
        failures.push({ position, error: err });
        continue;
      }
      const row: CustomerRow = {
        ...(Object.fromEntries(Object.keys(EMPTY_CUSTOMER).map((k) => [k, null])) as unknown as CustomerRow),
        ...(v.values as Partial<CustomerRow>),
        ext: mergedExt(null, v.fields),
        id: it.id ?? timeOrderedUuid(),
        app_id: appId,
        owner_id: v.ownerId,
        create_way: (v.values.create_way as number | null | undefined) ?? opts.createWay ?? DEFAULT_CREATE_WAY,
        allocation_user_id: v.ownerChanged ? String(v.ownerId) : null,
        status: 1,
        is_new: 1,
        detail_viewed_at: null,
        seen_behaviour_count: 0,
        merge_pending: 0,
        created_at: now,
        updated_at: now,
      };
      rows.push(row);
      fieldValues.push(...fieldValueRows(appId, row.id, v.fields));
      for (const [key, values] of taken) {
        const value: FieldValue | null | undefined = key.startsWith('field:')
          ? v.fields[key.slice('field:'.length)]
          : row[key as keyof CustomersTable];
        if (value !== null && value !== undefined) values.add(String(value));
      }
    }
    return { rows, fieldValues };
  }

  /**
   * Duplicate checks, whetherMerge side: each row's flag as it would have seen it alone — live
   * customers of the same owner stored before, and earlier rows of the list, sharing a phone or
   * an e-mail.
   */
  async function mergeFlags(trx: Kysely<Database>, appId: string, rows: CustomerRow[]): Promise<number[]> {
    const stored = await repo.liveTwins(trx, appId, rows);
    const phones = new Set(stored.filter((o) => o.phone).map((o) => `${o.owner_id}\u0000${o.phone}`));
    const emails = new Set(stored.filter((o) => o.email_lower).map((o) => `${o.owner_id}\u0000${o.email_lower}`));
    return rows.map((row) => {
      const phone = row.phone ? `${row.owner_id}\u0000${row.phone}` : null;
      const email = row.email_lower ? `${row.owner_id}\u0000${row.email_lower}` : null;
      const merge = (phone !== null && phones.has(phone)) || (email !== null && emails.has(email)) ? 1 : 0;
      if (phone !== null) phones.add(phone);
      if (email !== null) emails.add(email);
      return merge;
    });
  }

  /** What new rows bring besides themselves: their responses, `create` behaviour records, and Customer and BehaviourLog events. */
  function createdRecords(appId: string, rows: CustomerRow[], merges: number[], now: number) {
    const customers: CustomerResponse[] = [];
    const behaviours: Insertable<BehaviourLogsTable>[] = [];
    const events: EventMessage[] = [];
    rows.forEach((row, i) => {
      const customer = toCustomer(row, clock, merges[i] ?? 0);
      customers.push(customer);
      const behaviour = customerRecord(appId, row, 'create', customer, now);
      behaviours.push(behaviour);
      events.push(
        { event_type: 'create', domainType: 'Customer', domainId: row.id, body: customer },
        { event_type: 'create', domainType: 'BehaviourLog', domainId: behaviour.id, body: RECORD_BODY },
      );
    });
    return { customers, behaviours, events };
  }

  const service = {
    /** The project's custom fields: create, edit (built-in ones too, within limits), remove (docs/metadata.md). */
    fields: createFieldOps(db, access, metadata, audit),

    /**
     * Validates attribute values given with a merge against the composed survivor, as an edit of it
     * by `actingUserId` would be (the owner is the merge's, not the input's). Run after the merged
     * customers have left the live set, so their own values are not "taken".
     */
    async validateMergeOverrides(
      trx: Kysely<Database>,
      appId: string,
      current: CustomerRow,
      input: Record<string, unknown>,
      actingUserId: number,
      mayAssignOthers: boolean,
    ): Promise<Updateable<CustomersTable>> {
      const v = await validateCustomer(input, {
        mode: 'edit',
        metadata: await metadata.rows(trx, appId),
        actingUserId,
        mayAssignOthers,
        current,
        ...envFor(trx, appId),
      });
      const values: Updateable<CustomersTable> = { ...v.values };
      delete values.owner_id;
      delete values.allocation_user_id;
      // Custom fields given for the survivor join its composed ones (syncFieldValues then indexes them).
      if (Object.keys(v.fields).length > 0) values.ext = mergedExt(current.ext, v.fields);
      return values;
    },

    /**
     * Brings a customer's searchable and unique custom values (`customer_field_values`) in line with
     * its stored `ext`, when something other than create and edit composed it (a merge).
     */
    async syncFieldValues(trx: Kysely<Database>, appId: string, row: CustomerRow): Promise<void> {
      const ext = parseExt(row.ext) as Record<string, FieldValue | null>;
      await resetFieldValues(trx, appId, row.id, fieldValueRows(appId, row.id, ext));
    },

    /** whetherMerge of a row inside a transaction. */
    whetherMergeIn(trx: Kysely<Database>, row: CustomerRow): Promise<number> {
      return whetherMerge(trx, row);
    },

    /**
     * Validates and stores one customer inside the caller's transaction, with its `create` behaviour
     * record and the Customer and BehaviourLog create events (docs/interface.md §9). Used by the create
     * endpoint; ingestion stores a batch's customers with createManyInTransaction.
     */
    async createInTransaction(
      trx: Kysely<Database>,
      appId: string,
      input: Record<string, unknown>,
      opts: CreateOptions,
    ): Promise<CustomerResponse> {
      const result = await service.createManyInTransaction(trx, appId, [{ input, ownerId: opts.ownerId, id: opts.id }], opts);
      if ('failed' in result) throw result.failed.error;
      return result.customers[0] as CustomerResponse;
    },

    /**
     * Validates and stores customers in order inside the caller's transaction, each exactly as if
     * it had been created alone after the ones before it (uniqueness and whetherMerge see the
     * earlier ones), with one statement per table for the whole list (ingestion batches of
     * Customer items). The first invalid item stops the list: nothing is written and its
     * position and error are returned.
     */
    async createManyInTransaction(
      trx: Kysely<Database>,
      appId: string,
      items: NewCustomer[],
      opts: ListOptions,
    ): Promise<{ customers: CustomerResponse[] } | { failed: { position: number; error: AppError } }> {
      if (items.length === 0) return { customers: [] };
      const validate = await batchValidator(trx, appId, opts);
      const taken = await takenValues(trx, appId, items, validate);
      const built = await validatedRows(appId, items, validate, taken, opts);
      if ('failed' in built) return built;
      const created = createdRecords(appId, built.rows, await mergeFlags(trx, appId, built.rows), opts.now);
      await writes.insertCreated(trx, {
        customers: built.rows,
        fieldValues: built.fieldValues,
        behaviours: created.behaviours,
        day: clock.format(opts.now).slice(0, 10),
        outbox: eventRows(appId, created.events, opts.now),
      });
      return { customers: created.customers };
    },

    /**
     * One batch of an import inside the caller's transaction (docs/data-operations.md): each row
     * goes through the create endpoint's validation and write path (createWay 7), an invalid row is
     * reported and the others go on. A row whose duplicate key (the project's unique attributes;
     * without any, the mobile number and then the e-mail) names a live customer the importer may
     * read, or an earlier row of the batch, is skipped, or updates that customer (`update`: the
     * row's non-blank values win; `merge`: only the customer's blank attributes are filled).
     */
    async importInTransaction(trx: Kysely<Database>, appId: string, items: ImportItem[], opts: ImportOptions): Promise<ImportOutcome> {
      const outcome: ImportOutcome = { created: 0, updated: 0, skipped: 0, problems: [] };
      if (items.length === 0) return outcome;
      const meta = await metadata.rows(trx, appId);
      const keys = duplicateKeys(meta);
      const keyOf = (input: Record<string, unknown>, key: DuplicateKey): string | null => {
        const raw = readParam(input, key);
        if (raw === undefined || raw === null) return null;
        const text = String(raw).trim();
        // A malformed mobile number or e-mail names nobody: its row fails validation on its own.
        if (text === '' || (key.column === 'phone' && !isPhone(text)) || (key.column === 'email_lower' && !isEmail(text))) return null;
        return key.column === 'email_lower' ? text.toLowerCase() : text;
      };
      // Stored live customers the rows' keys name.
      const stored = new Map<string, CustomerRow>();
      for (const key of keys) {
        const values = [...new Set(items.map((it) => keyOf(it.input, key)).filter((v): v is string => v !== null))];
        for (const row of await repo.liveByValues(trx, appId, key.column, values)) {
          // A customer the importer cannot read is no match: the row is a new customer, as create makes it.
          if (opts.matchOwnerId !== null && row.owner_id !== opts.matchOwnerId) continue;
          const value = row[key.column];
          const k = `${key.column}\u0000${String(value)}`;
          const earlier = stored.get(k);
          if (!earlier || row.created_at < earlier.created_at) stored.set(k, row);
        }
      }
      const fresh: (ImportItem & { extra: ImportItem[] })[] = [];
      const claimed = new Map<string, ImportItem & { extra: ImportItem[] }>();
      const updates: { item: ImportItem; current: CustomerRow }[] = [];
      for (const item of items) {
        const found = keys.map((key) => {
          const value = keyOf(item.input, key);
          return value === null ? null : `${key.column}\u0000${value}`;
        });
        let existing: CustomerRow | undefined;
        let earlier: (ImportItem & { extra: ImportItem[] }) | undefined;
        for (const k of found) {
          if (k === null) continue;
          existing ??= stored.get(k);
          earlier ??= claimed.get(k);
        }
        if (existing) {
          if (opts.policy === 'skip') outcome.skipped += 1;
          else updates.push({ item, current: existing });
        } else if (earlier) {
          // A duplicate of an earlier row of the file: skipped, or folded into that row before it is written.
          if (opts.policy === 'skip') outcome.skipped += 1;
          else earlier.extra.push(item);
        } else {
          const entry = { ...item, extra: [] };
          fresh.push(entry);
          for (const k of found) if (k !== null) claimed.set(k, entry);
        }
      }
      const fixed = (input: Record<string, unknown>): Record<string, unknown> => {
        const out: Record<string, unknown> = { ...input };
        delete out.createWay;
        out.create_way = String(IMPORT_CREATE_WAY);
        if (opts.groupId !== undefined && blank(readParam(out, { param: 'group_id', name: 'groupId' }))) out.group_id = opts.groupId;
        return out;
      };
      const combined = fresh.map((entry) => {
        let input = entry.input;
        for (const later of entry.extra) {
          input =
            opts.policy === 'update'
              ? { ...input, ...Object.fromEntries(Object.entries(later.input).filter(([, v]) => !blank(v))) }
              : { ...Object.fromEntries(Object.entries(later.input).filter(([, v]) => !blank(v))), ...dropBlank(input) };
        }
        return { input: fixed(input), ownerId: opts.ownerId };
      });
      const listOpts: ListOptions = {
        now: opts.now,
        validate: 'create',
        createWay: IMPORT_CREATE_WAY,
        mayAssignOthers: opts.mayAssignOthers,
      };
      const failures: { position: number; error: AppError }[] = [];
      if (combined.length > 0) {
        const validate = await batchValidator(trx, appId, listOpts);
        const taken = await takenValues(trx, appId, combined, validate);
        const built = await validatedRows(appId, combined, validate, taken, listOpts, failures);
        if ('failed' in built) throw built.failed.error; // not reached: failures are collected
        const failedAt = new Set(failures.map((f) => f.position));
        fresh.forEach((entry, i) => {
          if (failedAt.has(i)) return;
          outcome.created += 1;
          outcome.updated += entry.extra.length;
        });
        if (!opts.dryRun && built.rows.length > 0) {
          const created = createdRecords(appId, built.rows, await mergeFlags(trx, appId, built.rows), opts.now);
          await writes.insertCreated(trx, {
            customers: built.rows,
            behaviours: created.behaviours,
            day: clock.format(opts.now).slice(0, 10),
            outbox: eventRows(appId, created.events, opts.now),
          });
        }
        for (const f of failures) {
          const entry = fresh[f.position] as ImportItem & { extra: ImportItem[] };
          for (const it of [entry, ...entry.extra]) outcome.problems.push(problem(it.row, f.error));
        }
      }
      const env = envFor(trx, appId);
      const events: EventMessage[] = [];
      const readonlyNames = new Set(meta.filter((m) => m.readonly === 1).map((m) => m.name));
      const touched = new Map<string, CustomerRow>();
      for (const { item, current: first } of updates) {
        const current = touched.get(first.id) ?? first;
        const input: Record<string, unknown> = {};
        for (const [name, value] of Object.entries(fixed(item.input))) {
          if (blank(value)) continue;
          const spec = ATTRIBUTE_BY_NAME.get(name) ?? ATTRIBUTES.find((a) => a.param === name);
          // Read-only attributes are set when a customer is made, never by an update.
          if (spec && readonlyNames.has(spec.name)) continue;
          if (name === 'group_id' && opts.groupId !== undefined && value === opts.groupId && current.group_id !== null) continue;
          if (opts.policy === 'merge' && spec && !blank(current[spec.column])) continue;
          input[name] = value;
        }
        try {
          const v = await validateCustomer(input, {
            mode: 'edit',
            metadata: meta,
            actingUserId: opts.ownerId,
            mayAssignOthers: opts.mayAssignOthers,
            current,
            ...env,
          });
          outcome.updated += 1;
          if (opts.dryRun) continue;
          const patch: Updateable<CustomersTable> = { ...v.values, updated_at: opts.now };
          if (v.ownerChanged) {
            Object.assign(patch, {
              owner_id: v.ownerId,
              allocation_user_id: String(v.ownerId),
              is_new: 1,
              detail_viewed_at: null,
              seen_behaviour_count: 0,
            });
          }
          const updated = await repo.update(trx, appId, current.id, patch);
          if (updated) {
            touched.set(updated.id, updated);
            events.push(customerEvent('update', updated));
          }
        } catch (err) {
          if (!(err instanceof AppError)) throw err;
          outcome.problems.push(problem(item.row, err));
        }
      }
      if (events.length > 0) await writeEvents(trx, appId, events, opts.now);
      outcome.problems.sort((a, b) => a.row - b.row);
      return outcome;
    },

    /**
     * The project's attributes for an import's column mapping and template: name, title, type,
     * read-only, in display order (the project's metadata).
     */
    async importAttributes(
      appId: string,
    ): Promise<{ name: string; param: string | undefined; title: string; readonly: boolean; required: boolean }[]> {
      return (await metadata.rows(db, appId)).map((m) => ({
        name: m.name,
        param: ATTRIBUTE_BY_NAME.get(m.name)?.param,
        title: m.title,
        readonly: m.readonly === 1,
        required: m.required === 1,
      }));
    },

    /**
     * The customers an export writes, a page at a time in creation order from after `afterId`
     * (constant memory however many): what the caller may see (a Sales member: their own), with
     * the list's filters. Rows as the Customer object.
     */
    async exportPage(
      scope: CustomerScope,
      filter: CustomerFilter,
      afterId: string | null,
      limit: number,
    ): Promise<{ customers: CustomerResponse[]; last: string | null }> {
      const rows = await repo.exportPage(db, ctx.database.features, scope, filter, afterId, limit);
      return {
        customers: rows.map((r) => toCustomer(r, clock)),
        last: rows.length === limit ? (rows[rows.length - 1] as CustomerRow).id : null,
      };
    },

    /**
     * The path's acting member for work done for it (an import): the caller, or for Master/Admin
     * another active member; and whether the caller may assign customers to others.
     */
    async actingFor(appId: string, callerId: number, pathUserId: string): Promise<{ acting: number; isManager: boolean }> {
      const { m, acting } = await actingMember(appId, callerId, pathUserId);
      return { acting, isManager: m.isManager };
    },

    /**
     * Whose customers a caller may export: a Sales member their own, unless the project switched Sales
     * export off; Master and Admin everyone's, or one member's (`requestedOwner`, as the list's owner filter).
     */
    async exportScope(appId: string, callerId: number, requestedOwner?: number): Promise<CustomerScope> {
      const m = await access.membership(appId, callerId);
      if (!m.isManager && m.app.sales_export === 0) throw forbidden('This project does not let Sales members export customers');
      return { appId, ownerId: access.visibleOwner(m, requestedOwner) };
    },

    /** Live customers of the project a campaign may mail: among these ids, or in a group; only one owner's when `ownerId` is set. */
    mailRecipients(appId: string, query: MailRecipientQuery): Promise<MailRecipient[]> {
      return repo.mailRecipients(db, appId, query);
    },

    /** Live customers of the project among these ids, as the public viewer attributes views to them. */
    async viewerCustomers(appId: string, ids: string[]): Promise<Map<string, ViewerCustomer>> {
      const found = await repo.findMany(ctx.database.reader, appId, ids);
      const out = new Map(found.filter((r) => r.status === 1).map((r) => [r.id, { id: r.id, name: r.name, ownerId: r.owner_id }]));
      // A merged customer (a directed link's, a visitor's) is answered by the customer it was merged into.
      const merged = found.filter((r) => r.status === 2 && r.merged_customer_id !== null);
      if (merged.length > 0) {
        const survivors = new Map(
          (await repo.findMany(ctx.database.reader, appId, [...new Set(merged.map((r) => r.merged_customer_id as string))]))
            .filter((r) => r.status === 1)
            .map((r) => [r.id, r]),
        );
        for (const r of merged) {
          const s = survivors.get(r.merged_customer_id as string);
          if (s) out.set(r.id, { id: s.id, name: s.name, ownerId: s.owner_id });
        }
      }
      return out;
    },

    /**
     * The live customer of the project with this mobile number, else this e-mail address, or null (the
     * site snippet's `identify`: it only finds, never creates or edits).
     */
    async viewerCustomerByContact(appId: string, phone: string | null, email: string | null): Promise<ViewerCustomer | null> {
      const found = await repo.liveByContact(db, appId, phone, email?.toLowerCase() ?? null);
      return found ? { id: found.id, name: found.name, ownerId: found.owner_id } : null;
    },

    /**
     * A visitor's form (docs/links.md), inside the caller's transaction: the live customer of the
     * project with the form's mobile number, else its e-mail, is matched and left as it is (a form
     * never edits a customer); otherwise a customer is created through the create path's validation
     * and unique rules, with createWay 5 and `ownerId` as owner. Null when the form names no customer
     * the project's attributes accept (a required attribute it lacks, a malformed value, a unique one taken).
     */
    async fromForm(
      trx: Kysely<Database>,
      appId: string,
      input: Record<string, unknown>,
      ownerId: number,
      now: number,
    ): Promise<{ customer: ViewerCustomer; created: boolean } | null> {
      const text = (v: unknown) => (typeof v === 'string' && v.trim() !== '' ? v.trim() : null);
      const phone = text(input.phone);
      const email = text(input.email)?.toLowerCase() ?? null;
      if (phone === null && email === null) return null;
      const found = await repo.liveByContact(trx, appId, phone, email);
      if (found) return { customer: { id: found.id, name: found.name, ownerId: found.owner_id }, created: false };
      const result = await service.createManyInTransaction(trx, appId, [{ input: { ...input, create_way: FORM_CREATE_WAY }, ownerId }], {
        now,
        validate: 'create',
        createWay: FORM_CREATE_WAY,
        mayAssignOthers: false,
      });
      if ('failed' in result) return null;
      const c = result.customers[0] as CustomerResponse;
      return { customer: { id: c.id, name: c.name, ownerId: Number(c.svcUserId) }, created: true };
    },

    async create(appId: string, callerId: number, pathUserId: string, input: Record<string, unknown>): Promise<CustomerResponse> {
      const { m, acting } = await actingMember(appId, callerId, pathUserId);
      return db.transaction().execute(async (trx) => {
        const created = await service.createInTransaction(trx, appId, input, {
          ownerId: acting,
          now: clock.now(),
          validate: 'create',
          mayAssignOthers: m.isManager,
        });
        // Created for someone else: an assignment, as a transfer is.
        if (created.svcUserId !== String(callerId)) {
          await audit(trx, {
            appId,
            actorId: callerId,
            action: 'customer.transfer_owner',
            targetType: 'customer',
            targetId: created.id,
            detail: { from: null, to: created.svcUserId },
          });
        }
        return created;
      });
    },

    async edit(
      appId: string,
      callerId: number,
      pathUserId: string,
      customerId: string,
      input: Record<string, unknown>,
    ): Promise<CustomerResponse> {
      const { m, acting } = await actingMember(appId, callerId, pathUserId);
      return db.transaction().execute(async (trx) => {
        const current = visible(m, await repo.findForUpdate(trx, appId, customerId, ctx.database.features.skipLocked));
        if (current.status !== 1) throw customerNotFound();
        const v = await validateCustomer(input, {
          mode: 'edit',
          metadata: await metadata.rows(trx, appId),
          actingUserId: acting,
          mayAssignOthers: m.isManager,
          current,
          ...envFor(trx, appId),
        });
        const now = clock.now();
        const patch: Updateable<CustomersTable> = { ...v.values, updated_at: now };
        const changedFields = Object.keys(v.fields);
        if (changedFields.length > 0) {
          patch.ext = mergedExt(current.ext, v.fields);
          await replaceFieldValues(trx, appId, customerId, changedFields, fieldValueRows(appId, customerId, v.fields));
        }
        if (v.ownerChanged) {
          Object.assign(patch, {
            owner_id: v.ownerId,
            allocation_user_id: String(v.ownerId),
            is_new: 1,
            detail_viewed_at: null,
            seen_behaviour_count: 0,
          });
          if (v.values.group_id === undefined) patch.group_id = null;
        }
        const updated = await repo.update(trx, appId, customerId, patch);
        if (!updated) throw customerNotFound();
        if (v.ownerChanged) {
          await audit(trx, {
            appId,
            actorId: callerId,
            action: 'customer.transfer_owner',
            targetType: 'customer',
            targetId: customerId,
            detail: { from: String(current.owner_id), to: String(v.ownerId) },
          });
        }
        const merge = await whetherMerge(trx, updated);
        await writeEvents(trx, appId, [customerEvent('update', updated, merge)], now);
        return toCustomer(updated, clock, merge);
      });
    },

    async detail(customerId: string, callerId: number): Promise<CustomerResponse> {
      const found = await repo.detail(reader, customerId);
      if (!found) throw customerNotFound();
      const { row } = found;
      let m: Membership;
      try {
        m = await access.membership(row.app_id, callerId);
      } catch (err) {
        // Outsiders learn nothing about which ids exist; anything else (a database fault) stays an error.
        if (err instanceof AppError) throw customerNotFound();
        throw err;
      }
      visible(m, row);
      if (row.owner_id === callerId && row.status === 1 && (row.is_new === 1 || found.hasNewBehaviour)) {
        // Opening the detail is the owner "seeing" the customer: clears isNew and newCount.
        await repo.markSeen(db, row.app_id, row.id, clock.now());
      }
      // A merged customer (status 2) is nobody's duplicate any more.
      return toCustomer(row, clock, row.status === 2 ? 0 : found.whetherMerge);
    },

    async list(appId: string, callerId: number, pathUserId: string, p: Page, filter: CustomerFilter = {}): Promise<CustomerListItem[]> {
      const m = await access.membership(appId, callerId);
      let requested: number | undefined;
      if (pathUserId !== 'all') {
        if (!/^\d{1,10}$/.test(pathUserId)) throw badRequest("Invalid path parameter 'svc-user-id': a platform user id or 'all'");
        requested = Number(pathUserId);
      }
      const scope: CustomerScope = { appId, ownerId: access.visibleOwner(m, requested) };
      const keyword = filter.keyword?.trim() ?? '';
      const phone = filter.phone?.trim() || undefined;
      const email = filter.email?.trim() || undefined;
      const plain = keyword === '' && filter.groupId === undefined && phone === undefined && email === undefined;
      const searchFields = keyword === '' ? [] : await metadata.searchable(appId);
      const rows = plain
        ? await repo.page(ctx.database, scope, p.offset, p.limit)
        : await repo.filteredPage(db, scope, { keyword, groupId: filter.groupId, phone, email, searchFields }, p.offset, p.limit);
      return withExtras(appId, rows);
    },

    async search(appId: string, callerId: number, condition: string | undefined, p: Page): Promise<CustomerListItem[]> {
      const m = await access.membership(appId, callerId);
      const c = condition?.trim() ?? '';
      if (c === '') throw badRequest("Missing required parameter 'condition'");
      const scope: CustomerScope = { appId, ownerId: access.visibleOwner(m, undefined) };
      return withExtras(appId, await repo.search(reader, scope, c, p.offset, p.limit));
    },

    /** Moves customers to another owner; all-or-nothing. */
    async transferOwners(appId: string, callerId: number, datas: unknown, target: number | undefined): Promise<true> {
      const m = await access.membership(appId, callerId);
      if (target === undefined) throw badRequest("Missing required parameter 'target_svc_userid'");
      // As on create and edit: a Sales member may not give customers to someone else.
      if (!m.isManager && target !== m.userId)
        throw forbidden('Only the project Master or an Admin may assign a customer to another member');
      let items: unknown = datas;
      if (typeof datas === 'string') {
        try {
          items = JSON.parse(datas);
        } catch {
          throw badRequest("Invalid parameter 'datas': must be a JSON array");
        }
      }
      if (!Array.isArray(items) || items.length === 0) throw badRequest("Invalid parameter 'datas': must be a non-empty JSON array");
      if (items.length > MAX_TRANSFER_ITEMS) throw badRequest(`Invalid parameter 'datas': at most ${MAX_TRANSFER_ITEMS} items`);
      const parsed = (items as TransferItem[]).map((it, i) => {
        if (typeof it !== 'object' || it === null || typeof it.customerId !== 'string' || it.customerId === '') {
          throw failure('datas_invalid', `datas[${i}].customerId is required`);
        }
        return {
          customerId: it.customerId,
          group: it.srouceGroupId === undefined || it.srouceGroupId === null ? undefined : String(it.srouceGroupId),
          owner: it.srouceSvcUserId === undefined || it.srouceSvcUserId === null ? undefined : String(it.srouceSvcUserId),
        };
      });
      if (new Set(parsed.map((p) => p.customerId)).size !== parsed.length) throw failure('datas_invalid', 'datas names a customer twice');
      await db.transaction().execute(async (trx) => {
        if (!(await members.isActiveMember(trx, appId, target))) throw failure('target_svc_userid_invalid');
        const rows = new Map(
          (
            await repo.findMany(
              ctx.database.readerFor(trx),
              appId,
              parsed.map((p) => p.customerId),
            )
          ).map((r) => [r.id, r]),
        );
        for (const p of parsed) {
          const row = visible(m, rows.get(p.customerId));
          if (row.status !== 1) throw customerNotFound();
          if (p.owner !== undefined && p.owner !== '' && p.owner !== String(row.owner_id)) {
            throw failure('srouceSvcUserId_mismatch', `customer ${row.id} is not owned by ${p.owner}`);
          }
          if (p.group !== undefined && p.group !== (row.group_id ?? '')) {
            throw failure('srouceGroupId_mismatch', `customer ${row.id} is not in group ${p.group}`);
          }
        }
        const now = clock.now();
        const events: EventMessage[] = [];
        for (const p of parsed) {
          const updated = await repo.update(trx, appId, p.customerId, {
            owner_id: target,
            group_id: null,
            allocation_user_id: String(target),
            is_new: 1,
            detail_viewed_at: null,
            seen_behaviour_count: 0,
            updated_at: now,
          });
          if (updated) events.push(customerEvent('update', updated));
        }
        await writeEvents(trx, appId, events, now);
        for (const p of parsed) {
          const from = rows.get(p.customerId)?.owner_id;
          await audit(trx, {
            appId,
            actorId: callerId,
            action: 'customer.transfer_owner',
            targetType: 'customer',
            targetId: p.customerId,
            detail: { from: String(from), to: String(target) },
          });
        }
      });
      return true;
    },

    /** Moves customers from one group to another of the same owner; all-or-nothing. */
    async transferGroup(
      appId: string,
      callerId: number,
      input: { source_group_id?: string | undefined; target_group_id?: string | undefined; customer_ids?: string | undefined },
    ): Promise<true> {
      const m = await access.membership(appId, callerId);
      for (const k of ['source_group_id', 'target_group_id', 'customer_ids'] as const) {
        if (input[k] === undefined || (k !== 'source_group_id' && input[k] === '')) throw badRequest(`Missing required parameter '${k}'`);
      }
      const ids = [
        ...new Set(
          (input.customer_ids ?? '')
            .split(',')
            .map((s) => s.trim())
            .filter((s) => s !== ''),
        ),
      ];
      if (ids.length === 0) throw badRequest("Invalid parameter 'customer_ids': no customer id");
      if (ids.length > MAX_TRANSFER_ITEMS) throw badRequest(`Invalid parameter 'customer_ids': at most ${MAX_TRANSFER_ITEMS} ids`);
      await db.transaction().execute(async (trx) => {
        const source = input.source_group_id === '' ? null : await groups.visible(trx, m, input.source_group_id ?? '');
        const target = await groups.visible(trx, m, input.target_group_id ?? '');
        const rows = new Map((await repo.findMany(ctx.database.readerFor(trx), appId, ids)).map((r) => [r.id, r]));
        for (const id of ids) {
          const row = visible(m, rows.get(id));
          if (row.status !== 1) throw customerNotFound();
          if ((row.group_id ?? null) !== (source?.id ?? null))
            throw failure('customer_not_in_group', `customer ${id} is not in the source group`);
          if (row.owner_id !== target.owner_id)
            throw failure('group_owner_mismatch', `the target group belongs to another member than customer ${id}'s owner`);
        }
        const now = clock.now();
        const events: EventMessage[] = [];
        for (const id of ids) {
          const updated = await repo.update(trx, appId, id, { group_id: target.id, updated_at: now });
          if (updated) events.push(customerEvent('update', updated));
          await audit(trx, {
            appId,
            actorId: callerId,
            action: 'customer.transfer_group',
            targetType: 'customer',
            targetId: id,
            detail: { from: source?.id ?? null, to: target.id },
          });
        }
        await writeEvents(trx, appId, events, now);
      });
      return true;
    },

    /** Soft delete: status 0, gone from lists and search; detail still answers. */
    async remove(appId: string, callerId: number, pathUserId: string, customerId: string): Promise<true> {
      const { m } = await actingMember(appId, callerId, pathUserId);
      await db.transaction().execute(async (trx) => {
        const row = visible(m, await repo.find(trx, appId, customerId));
        if (row.status !== 1) throw customerNotFound();
        const now = clock.now();
        const updated = await repo.update(trx, appId, customerId, { status: 0, updated_at: now });
        if (updated) await writeEvents(trx, appId, [customerEvent('delete', updated)], now);
        await audit(trx, { appId, actorId: callerId, action: 'customer.delete', targetType: 'customer', targetId: customerId });
      });
      return true;
    },
  };
  return service;
}

interface DuplicateKey {
  name: string;
  param: string;
  column: 'phone' | 'email_lower' | keyof CustomersTable;
}

/** An import's duplicate key: the project's unique attributes; without any, the mobile number and then the e-mail. */
function duplicateKeys(meta: { name: string; is_unique: number }[]): DuplicateKey[] {
  const unique = meta
    .filter((m) => m.is_unique === 1)
    .map((m) => ATTRIBUTE_BY_NAME.get(m.name))
    .filter((spec): spec is NonNullable<typeof spec> => spec !== undefined)
    .map((spec) => ({ name: spec.name, param: spec.param, column: spec.column === 'email' ? ('email_lower' as const) : spec.column }));
  if (unique.length > 0) return unique;
  return [
    { name: 'phone', param: 'phone', column: 'phone' },
    { name: 'email', param: 'email', column: 'email_lower' },
  ];
}

function dropBlank(input: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(input).filter(([, v]) => !blank(v)));
}

function problem(row: number, err: AppError): { row: number; code: string; reason: string } {
  return { row, code: err.code, reason: err.message };
}

/** Every column of a customer row, for building a complete row from a partial one. */
const EMPTY_CUSTOMER: Record<keyof CustomersTable, null> = {
  id: null,
  app_id: null,
  owner_id: null,
  group_id: null,
  name: null,
  headportrait_url: null,
  company: null,
  title: null,
  phone: null,
  email: null,
  email_lower: null,
  fixed_phone: null,
  industry: null,
  province: null,
  city: null,
  county: null,
  address: null,
  lead_source: null,
  platform: null,
  from_source: null,
  utm_medium: null,
  utm_campaign: null,
  utm_content: null,
  buyed_keyword: null,
  search_keyword: null,
  promoter_id: null,
  from_content_title: null,
  from_content_link: null,
  from_province: null,
  from_city: null,
  source: null,
  deal_user_id: null,
  allocation_user_id: null,
  merged_customer_id: null,
  ext: null,
  sex: null,
  age_state: null,
  intentionality: null,
  grade: null,
  create_way: null,
  get_way: null,
  status: null,
  is_new: null,
  detail_viewed_at: null,
  seen_behaviour_count: null,
  merge_pending: null,
  created_at: null,
  updated_at: null,
};

export type CustomersService = ReturnType<typeof createCustomersService>;
export type { CustomerFilter, CustomerScope };
