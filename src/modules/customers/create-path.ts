import type { Insertable, Kysely } from 'kysely';
import type { AppContext } from '../../context.ts';
import type { BehaviourLogsTable, CustomerFieldValuesTable, CustomersTable, Database, PreparedReader } from '../../db/index.ts';
import { type EventMessage, RECORD_BODY, bulkEventWriter } from '../../events/outbox.ts';
import { AppError } from '../../http/errors.ts';
import { timeOrderedUuid } from '../../lib/ids.ts';
import type { BehaviourService } from '../behaviour/service.ts';
import type { GroupsService } from '../groups/service.ts';
import type { MembersService } from '../members/service.ts';
import type { MetadataService } from '../metadata/service.ts';
import { type FieldValue, fieldValueRows, mergedExt } from './fields.ts';
import { type CustomerResponse, type CustomerRow, toCustomer } from './mapper.ts';
import { DEFAULT_CREATE_WAY, customerRecord } from './records.ts';
import { type UniqueKey, createCustomerWrites, customerWritesRepository as repo } from './writes.repository.ts';
import { type ValidatedCustomer, type ValidationEnv, type ValidationMode, validateCustomer } from './validation.ts';

/**
 * The create path every new customer goes through (the create endpoint, ingestion, a visitor's form,
 * an import): validation of a list in order, duplicate checks against stored values and earlier
 * items, whetherMerge, and the one write of the customers with their `create` behaviour records
 * (through the behaviour service) and their events (the outbox's bulk writer).
 */

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
export type ListOptions = Omit<CreateOptions, 'ownerId' | 'id'>;

/** An invalid item of a list: its position and why. */
export interface ItemFailure {
  position: number;
  error: AppError;
}

/** Validates one input for an acting member, asking `isTaken` about unique values. */
export type BatchValidate = ((
  input: Record<string, unknown>,
  ownerId: number,
  isTaken: ValidationEnv['isTaken'],
) => Promise<ValidatedCustomer>) & {
  /** Some attribute is unique: only then do items ask about stored values. */
  checksUnique?: boolean;
};

/** A list being validated: its project, its validator, the unique values taken so far, its options. */
export interface Batch {
  appId: string;
  validate: BatchValidate;
  taken: Map<UniqueKey, Set<string>>;
  opts: ListOptions;
}

/** Valid items made complete rows, with their custom values' rows. */
export interface BuiltRows {
  rows: CustomerRow[];
  fieldValues: CustomerFieldValuesTable[];
}

export interface CreatePathDeps {
  metadata: MetadataService;
  groups: GroupsService;
  members: MembersService;
  behaviour: BehaviourService;
  /** The project's region (the projects service's `region`): what its phone numbers mean. */
  regionOf: (appId: string) => Promise<string>;
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
  phone_key: null,
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
  last_activity_at: null,
  score_key: null,
  score_rise_at: null,
};

/** A new customer's complete row from its validated values. */
function newRow(appId: string, it: NewCustomer, v: ValidatedCustomer, opts: ListOptions): CustomerRow {
  const now = opts.now;
  return {
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
    // Its `create` record is bookkeeping, not activity.
    last_activity_at: 0,
    score_key: 0,
    score_rise_at: 0,
  };
}

/** Adds a new row's unique values to those taken, so later items of the list see them. */
function markTaken(taken: Map<UniqueKey, Set<string>>, row: CustomerRow, fields: ValidatedCustomer['fields']): void {
  for (const [key, values] of taken) {
    const value: FieldValue | null | undefined = key.startsWith('field:')
      ? fields[key.slice('field:'.length)]
      : row[key as keyof CustomersTable];
    if (value !== null && value !== undefined) values.add(String(value));
  }
}

export function createCreatePath(ctx: AppContext, deps: CreatePathDeps) {
  const { metadata, groups, members, behaviour } = deps;
  const clock = ctx.clock;
  const writes = createCustomerWrites(ctx.database.features);
  const writeEvents = bulkEventWriter(ctx.database.features);

  /** What validation asks the database, inside the transaction, and the project's region. */
  async function envFor(trx: Kysely<Database>, appId: string) {
    return {
      region: await deps.regionOf(appId),
      isActiveMember: (userId: number) => members.isActiveMember(trx, appId, userId),
      isGroupOf: async (groupId: string, ownerId: number) => (await groups.ownerOf(trx, appId, groupId)) === ownerId,
      isTaken: (key: UniqueKey, value: string | number, exceptId: string | undefined) => repo.isTaken(trx, appId, key, value, exceptId),
    };
  }

  /** Outside a transaction pass the database's reader; inside one, the transaction. */
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
    const env = await envFor(trx, appId);
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
        region: env.region,
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
  async function takenValues(trx: Kysely<Database>, appId: string, items: NewCustomer[], validate: BatchValidate) {
    const asked = new Map<UniqueKey, Set<string | number>>();
    // No unique attribute: no item asks, and the pass would only validate every item twice.
    if (validate.checksUnique === false) return new Map<UniqueKey, Set<string>>();
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

  /** A list's validator and the unique values its items would meet, inside its transaction. */
  async function batchFor(trx: Kysely<Database>, appId: string, items: NewCustomer[], opts: ListOptions): Promise<Batch> {
    const validate = await batchValidator(trx, appId, opts);
    return { appId, validate, taken: await takenValues(trx, appId, items, validate), opts };
  }

  /**
   * Validation, in order: each item checked against the stored values and those of the items
   * before it (added to `taken` as it goes), and made a complete row. The first invalid item
   * stops the list, unless `failures` collects them (an import goes on past an invalid row).
   */
  async function validatedRows(batch: Batch, items: NewCustomer[], failures?: ItemFailure[]): Promise<BuiltRows | { failed: ItemFailure }> {
    const rows: CustomerRow[] = [];
    const fieldValues: CustomerFieldValuesTable[] = [];
    const { taken } = batch;
    for (let position = 0; position < items.length; position += 1) {
      const it = items[position] as NewCustomer;
      let v: ValidatedCustomer;
      try {
        v = await batch.validate(it.input, it.ownerId, async (column, value) => taken.get(column)?.has(String(value)) ?? false);
      } catch (err) {
        if (!(err instanceof AppError)) throw err;
        if (failures === undefined) return { failed: { position, error: err } };
        failures.push({ position, error: err });
        continue;
      }
      const row = newRow(batch.appId, it, v, batch.opts);
      rows.push(row);
      fieldValues.push(...fieldValueRows(batch.appId, row.id, v.fields));
      markTaken(taken, row, v.fields);
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
    const phones = new Set(stored.filter((o) => o.phone_key).map((o) => `${o.owner_id}\u0000${o.phone_key}`));
    const emails = new Set(stored.filter((o) => o.email_lower).map((o) => `${o.owner_id}\u0000${o.email_lower}`));
    return rows.map((row) => {
      const phone = row.phone_key ? `${row.owner_id}\u0000${row.phone_key}` : null;
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
      const record = customerRecord(appId, row, 'create', customer, now);
      behaviours.push(record);
      events.push(
        { event_type: 'create', domainType: 'Customer', domainId: row.id, body: customer },
        { event_type: 'create', domainType: 'BehaviourLog', domainId: record.id, body: RECORD_BODY },
      );
    });
    return { customers, behaviours, events };
  }

  /**
   * Writes built rows inside the caller's transaction: the customers and their custom values, their
   * `create` records (with a rollup and a total each) and their events, one statement per table and chunk.
   */
  async function store(trx: Kysely<Database>, appId: string, built: BuiltRows, now: number): Promise<CustomerResponse[]> {
    const created = createdRecords(appId, built.rows, await mergeFlags(trx, appId, built.rows), now);
    await writes.insertCreated(trx, built.rows, built.fieldValues);
    await behaviour.writeFirstRecords(trx, created.behaviours, clock.format(now).slice(0, 10));
    await writeEvents(trx, appId, created.events, now);
    return created.customers;
  }

  return { envFor, whetherMerge, batchFor, validatedRows, store, regionOf: deps.regionOf };
}

export type CreatePath = ReturnType<typeof createCreatePath>;
