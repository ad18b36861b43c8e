import { type BehaviourRollupsTable, CommitQueueFull, type Database, isTransientConflict, isUniqueViolation } from '../../db/index.ts';
import type { Insertable, Kysely, Transaction } from 'kysely';
import type { AppContext } from '../../context.ts';
import { type EventMessage, RECORD_BODY, eventRows } from '../../events/outbox.ts';
import { AppError, accessDenied, failure, overloaded, quotaExceeded } from '../../http/errors.ts';
import type { AccessService } from '../access/service.ts';
import type { AccountsService } from '../accounts/service.ts';
import { overviewKeys } from '../behaviour/service.ts';
import type { ProjectsService } from '../projects/service.ts';
import {
  type ParseContext,
  type ParsedBehaviour,
  type ParsedCall,
  type ParsedClue,
  type ParsedLink,
  type ParsedViewLog,
  type References,
  parseBehaviour,
  parseCall,
  parseClue,
  parseDuration,
  parseLink,
  parsePost,
  parseViewLog,
} from './bodies.ts';
import { ItemError, RECORD_ID_RE } from './reader.ts';
import {
  type PlanRows,
  QuotaTaken,
  type RecordTable,
  type RowsPlan,
  type SiteRows,
  type ViewerRows,
  createIngestRepository,
} from './repository.ts';

export const MAX_EVENTS = 1000;
/** Route body limit (docs/interface.md §12: ≤ 5 MB). */
export const MAX_BATCH_BYTES = 5 * 1024 * 1024;

export const DOMAIN_TABLES = {
  Customer: 'customers',
  BehaviourLog: 'behaviour_logs',
  Call: 'calls',
  Link: 'links',
  LinkViewLog: 'link_view_logs',
  Clue: 'clues',
  Post: 'posts',
} as const satisfies Record<string, RecordTable>;

export type DomainType = keyof typeof DOMAIN_TABLES;

/** How a batch proves it may write to the project (docs/interface.md §12). */
export interface IngestCredentials {
  secret?: string | undefined;
  token?: string | undefined;
}

/** A caller `authorize` let in. */
export interface IngestCaller {
  readonly appId: string;
  /** Owner of ingested customers that name none. */
  readonly defaultOwner: number;
  /** How the caller proved it may write: the project secret or an access token. */
  readonly by: 'secret' | 'token';
}

export interface IngestResult {
  accepted: number;
  duplicates: number;
}

/**
 * Stores a batch's Customer bodies, in order, inside the batch transaction (the customers module's
 * engine, handed over by the composition root). Returns the position and error of the first
 * invalid one, when one is (nothing is then written).
 */
export type CustomerWriter = (
  trx: Transaction<Database>,
  appId: string,
  items: { input: Record<string, unknown>; ownerId: number; id: string }[],
  now: number,
) => Promise<{ position: number; error: AppError } | null>;

interface ItemBase {
  index: number;
  domainId: string;
  refs: References;
}
type Item =
  | (ItemBase & { type: 'Customer'; body: Record<string, unknown>; ownerId: number | null })
  | (ItemBase & { type: 'BehaviourLog'; parsed: ParsedBehaviour })
  | (ItemBase & { type: 'Call'; parsed: ParsedCall })
  | (ItemBase & { type: 'Link'; parsed: ParsedLink })
  | (ItemBase & { type: 'LinkViewLog'; parsed: ParsedViewLog })
  | (ItemBase & { type: 'Clue'; parsed: ParsedClue })
  | (ItemBase & { type: 'Post'; parsed: ReturnType<typeof parsePost> });

/** Batches of more records than this have a transaction of their own instead of joining a group. */
const GROUPED_MAX_RECORDS = 64;

/** What one validated batch writes, computed before any transaction opens. */
interface WritePlan extends Omit<RowsPlan, 'outbox'> {
  appId: string;
  now: number;
  customers: { index: number; input: Record<string, unknown>; ownerId: number; id: string }[];
  /** Outbox rows are made when written: their ids order the events after the customers' own. */
  events: EventMessage[];
}

interface ItemProblem {
  index: number;
  msg: string;
}

/** A view log's columns only the viewer fills: who is viewing, and the view's beacon state (migration 015). */
export interface ViewerViewState {
  visitor_id: string | null;
  customer_id: string | null;
  beacon_seq: number;
  beacon_at: number | null;
  closed_at: number | null;
  left_at: number | null;
}

/**
 * What the public viewer writes for one beacon, one view or one form, as interface-shaped bodies
 * (the Link view log, Duration item, Behaviour record and Clue fields): parsed by the batch's own
 * parsers and written with the batch's rows, overview rollups and outbox events. The viewer names
 * only records it has read, so references are not looked up again.
 */
export interface ViewerWrite {
  appId: string;
  now: number;
  /** Tags of the link the records are about: link views add to the overview's customerTag. */
  linkTags: string[];
  viewLogs?: { id: string; body: Record<string, unknown>; state: ViewerViewState }[];
  behaviours?: { id: string; body: Record<string, unknown> }[];
  clues?: { id: string; body: Record<string, unknown> }[];
  /**
   * A view log moves on with a beacon, if its last beacon is still `fromSeq` (else nothing of the
   * write is written): its totals and leave time, its beacon state, and the Duration items of the
   * pages that changed, each at its position.
   */
  progress?: {
    viewLogId: string;
    fromSeq: number;
    totals: { totalDuration: number; totalPage: number; leaveTime: number | null };
    state: Pick<ViewerViewState, 'beacon_seq' | 'beacon_at' | 'closed_at' | 'left_at'>;
    durations: { position: number; body: Record<string, unknown> }[];
  };
  /** View logs a visitor made before a customer was known, now that customer's. */
  attribute?: { viewLogIds: string[]; customerId: string; viewerName: string | null };
  /** The form record filled while viewing (the view log's clueId). */
  viewClue?: { viewLogId: string; clueId: string };
  /** Events of the write that are not about a record it stores (an anonymous visitor opening a link). */
  events?: EventMessage[];
  /** Site tracking (docs/site-tracking.md): what the snippet's records write beside `behaviours`. */
  site?: SiteWrite;
}

/** What site tracking writes beside its behaviour records (docs/site-tracking.md). */
export interface SiteWrite {
  /** Visits begun or going on (their last sign of life `at`). */
  visits?: { visitorId: string; id: string; at: number; site: string | null; referrer: string | null; postId: string | null }[];
  /**
   * An anonymous visitor's records: Behaviour record bodies without their customer (customerId,
   * customerName, svcUserId), kept until the visitor is joined to a customer.
   */
  anonymous?: { id: string; visitorId: string; body: Record<string, unknown> }[];
  /** The visitor tied to a customer; `joined`: its anonymous records this write turns into the customer's (in `behaviours`). */
  tie?: { visitorId: string; customerId: string; verified: boolean; via: 'identify' | 'click' | 'link'; joined: string[] };
  /** A silent visit's end: written only while the visit is open with this last sign of life, else nothing of the write is. */
  close?: { visitorId: string; id: string; lastAt: number };
  /**
   * With `anonymous` or `tie`: the visitor's state they were computed from (SiteGuard). If it no
   * longer holds when the write commits, nothing of the write is (recordViewer answers false).
   */
  guard?: { visitorId: string; tiedTo: string | null; verified: boolean; joinedAll: boolean };
  /**
   * With `anonymous`: the project's daily cap of anonymous records (SITE_ANONYMOUS_DAILY_CAP) they
   * count against, on the day of the write's `now`. When the day's count has no room for them,
   * nothing of the write is written and recordViewer throws quota_exceeded.
   */
  dailyCap?: number;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * The ingestion endpoint's engine: validates a whole batch, resolves its references (to stored
 * records and to earlier items of the batch), skips records already stored, and writes the rest
 * with their outbox events and overview rollups in ONE transaction.
 */
export function createIngestService(
  ctx: AppContext,
  access: AccessService,
  accounts: AccountsService,
  projects: ProjectsService,
  writeCustomers: CustomerWriter,
) {
  const db: Kysely<Database> = ctx.database.db;
  const clock = ctx.clock;
  const repo = createIngestRepository(ctx.database);

  /** Who may ingest: the project's secret, else a Master/Admin token. */
  async function authorize(appId: string, creds: IngestCredentials): Promise<IngestCaller> {
    if (creds.secret !== undefined && creds.secret !== '') {
      const creator = await projects.creatorBySecret(appId, creds.secret);
      if (creator !== null) return { appId, defaultOwner: creator, by: 'secret' };
    }
    if (creds.token !== undefined && creds.token !== '') {
      const user = await accounts.authenticate(creds.token);
      accounts.assertActive(user);
      const m = await access.manager(appId, user.id);
      return { appId, defaultOwner: m.userId, by: 'token' };
    }
    throw accessDenied(creds.secret ? 'The project secret is wrong' : 'Send the project secret (X-App-Secret) or a bearer token');
  }

  function parseItem(raw: unknown, index: number, pc: Omit<ParseContext, 'domainId'>): Item {
    if (!isObject(raw)) throw new ItemError('item must be an object {event_type, domainType, domainId, body}');
    if (raw.event_type !== 'create') throw new ItemError("event_type must be 'create'");
    const type = raw.domainType;
    if (typeof type !== 'string' || !Object.hasOwn(DOMAIN_TABLES, type)) {
      throw new ItemError(`domainType must be one of ${Object.keys(DOMAIN_TABLES).join(', ')}`);
    }
    const domainId = raw.domainId;
    if (typeof domainId !== 'string' || !RECORD_ID_RE.test(domainId)) {
      throw new ItemError('domainId must be 1-64 characters of A-Z a-z 0-9 _ . : -');
    }
    if (!isObject(raw.body)) throw new ItemError('body must be an object');
    const body = raw.body;
    const c: ParseContext = { ...pc, domainId };
    const base = { index, domainId };
    switch (type as DomainType) {
      case 'Customer': {
        if (body.id !== undefined && body.id !== null && String(body.id) !== domainId) throw new ItemError('body.id must equal domainId');
        if (body.appId !== undefined && body.appId !== null && body.appId !== pc.appId) {
          throw new ItemError('body.appId must be the project of the request path');
        }
        const owner = body.svcUserId ?? body.svc_user_id;
        let ownerId: number | null = null;
        if (owner !== undefined && owner !== null && owner !== '') {
          ownerId = Number(owner);
          if (!/^\d{1,10}$/.test(String(owner)) || !Number.isSafeInteger(ownerId))
            throw new ItemError('svcUserId must be a platform user id');
        }
        // Owner, promoter and group are checked against the project by the customers module's validation.
        return { ...base, type: 'Customer', body, ownerId, refs: { customerIds: [], linkIds: [], scoped: [], memberIds: [] } };
      }
      case 'BehaviourLog': {
        const parsed = parseBehaviour(body, c);
        return { ...base, type: 'BehaviourLog', parsed, refs: parsed.refs };
      }
      case 'Call': {
        const parsed = parseCall(body, c);
        return { ...base, type: 'Call', parsed, refs: parsed.refs };
      }
      case 'Link': {
        const parsed = parseLink(body, c);
        return { ...base, type: 'Link', parsed, refs: parsed.refs };
      }
      case 'LinkViewLog': {
        const parsed = parseViewLog(body, c);
        return { ...base, type: 'LinkViewLog', parsed, refs: parsed.refs };
      }
      case 'Clue': {
        const parsed = parseClue(body, c);
        return { ...base, type: 'Clue', parsed, refs: parsed.refs };
      }
      case 'Post': {
        const parsed = parsePost(body, c);
        return { ...base, type: 'Post', parsed, refs: parsed.refs };
      }
    }
  }

  function invalid(problems: ItemProblem[]): AppError {
    problems.sort((a, b) => a.index - b.index);
    const first = problems[0];
    const msg = first ? `${problems.length} invalid item(s); first at index ${first.index}: ${first.msg}` : 'invalid batch';
    return failure('invalid_events', msg, { errors: problems.slice(0, 100) });
  }

  /** Validates one batch and computes its rows; throws invalid_events when any item is wrong. */
  async function runBatch(appId: string, payload: unknown[], defaultOwner: number): Promise<{ result: IngestResult; plan: WritePlan }> {
    const now = clock.now();
    const problems: ItemProblem[] = [];
    const items: Item[] = [];
    for (let i = 0; i < payload.length; i += 1) {
      try {
        items.push(parseItem(payload[i], i, { appId, clock, now }));
      } catch (err) {
        if (!(err instanceof ItemError)) throw err;
        problems.push({ index: i, msg: err.message });
      }
    }

    // Repeats inside the batch and records stored earlier are skipped, not overwritten.
    const seen = new Set<string>();
    const fresh: Item[] = [];
    let duplicates = 0;
    const idsByTable = new Map<RecordTable, string[]>();
    for (const it of items) {
      const key = `${it.type}\u0000${it.domainId}`;
      if (seen.has(key)) {
        duplicates += 1;
        continue;
      }
      seen.add(key);
      fresh.push(it);
      const table = DOMAIN_TABLES[it.type];
      const list = idsByTable.get(table) ?? [];
      list.push(it.domainId);
      idsByTable.set(table, list);
    }
    // Other records the items name are looked up with the same statements (one per table): an id
    // another project's record has is refused below.
    const lookups = new Map<RecordTable, Set<string>>();
    for (const [table, ids] of idsByTable) lookups.set(table, new Set(ids));
    for (const it of fresh) {
      for (const ref of it.refs.scoped) {
        const set = lookups.get(ref.table) ?? new Set<string>();
        set.add(ref.id);
        lookups.set(ref.table, set);
      }
    }
    const stored = new Map<RecordTable, Map<string, string>>();
    await Promise.all(
      [...lookups].map(async ([table, ids]) => {
        stored.set(table, await repo.existing(ctx.database, table, [...ids]));
      }),
    );
    const toWrite: Item[] = [];
    for (const it of fresh) {
      const owner = stored.get(DOMAIN_TABLES[it.type])?.get(it.domainId);
      if (owner === undefined) toWrite.push(it);
      else if (owner === appId) duplicates += 1;
      else problems.push({ index: it.index, msg: `${it.type} id ${it.domainId} is already used by another project` });
    }

    // Share tokens make link URLs, so two links may never share one.
    const tokens = new Map<string, number>();
    for (const it of toWrite) {
      if (it.type !== 'Link') continue;
      const token = it.parsed.row.share_token;
      if (tokens.has(token)) problems.push({ index: it.index, msg: 'shareToken is already used by an earlier link of the batch' });
      else tokens.set(token, it.index);
    }
    for (const index of await repo.takenShareTokens(db, tokens)) {
      problems.push({ index, msg: 'shareToken is already used by another link' });
    }

    // References resolve to stored records of the project or to earlier items of this batch.
    const customerRefs = new Set<string>();
    const linkRefs = new Set<string>();
    for (const it of toWrite) {
      for (const id of it.refs.customerIds) customerRefs.add(id);
      for (const id of it.refs.linkIds) linkRefs.add(id);
    }
    // Platform user ids named as the project's people: each must have a member record in the
    // project (active or removed: records of former members stay valid). The access module's
    // cached lookup answers most without a statement.
    const memberRefs = new Set<number>();
    for (const it of toWrite) for (const ref of it.refs.memberIds) memberRefs.add(ref.id);
    const [storedCustomers, storedLinks, knownMembers] = await Promise.all([
      repo.customers(ctx.database, appId, [...customerRefs]),
      repo.links(db, appId, [...linkRefs]),
      Promise.all([...memberRefs].map(async (id) => [id, (await access.memberRecord(appId, id)) !== null] as const)),
    ]);
    const isMember = new Map(knownMembers);
    const ownerIds = new Set<number>();
    for (const it of toWrite) if (it.type === 'Customer' && it.ownerId !== null) ownerIds.add(it.ownerId);
    const members = await repo.activeMembers(db, appId, [...ownerIds]);
    const batchCustomers = new Map<string, { index: number; owner: number }>();
    const batchLinks = new Map<string, { index: number; tags: string[] }>();
    for (const it of toWrite) {
      if (it.type === 'Customer') {
        if (it.ownerId !== null && !members.has(it.ownerId)) {
          problems.push({ index: it.index, msg: 'svcUserId must be an active member of the project' });
        }
        batchCustomers.set(it.domainId, { index: it.index, owner: it.ownerId ?? defaultOwner });
      }
      if (it.type === 'Link') {
        const tags = it.parsed.row.tags ? (JSON.parse(it.parsed.row.tags) as string[]) : [];
        batchLinks.set(it.domainId, { index: it.index, tags });
      }
    }
    const customerOwner = (id: string, index: number): number | undefined => {
      const s = storedCustomers.get(id);
      if (s) return s.owner_id;
      const b = batchCustomers.get(id);
      return b && b.index < index ? b.owner : undefined;
    };
    const linkTags = (id: string, index: number): string[] | undefined => {
      const s = storedLinks.get(id);
      if (s) return s;
      const b = batchLinks.get(id);
      return b && b.index < index ? b.tags : undefined;
    };
    for (const it of toWrite) {
      const foreign = it.refs.scoped.find((ref) => {
        const project = stored.get(ref.table)?.get(ref.id);
        return project !== undefined && project !== appId;
      });
      if (foreign !== undefined) {
        problems.push({ index: it.index, msg: `${foreign.field} ${foreign.id} is a record of another project` });
        continue;
      }
      const outsider = it.refs.memberIds.find((ref) => isMember.get(ref.id) !== true);
      if (outsider !== undefined) {
        problems.push({ index: it.index, msg: `${outsider.field} ${outsider.id} is not a member of this project` });
        continue;
      }
      const missingCustomer = it.refs.customerIds.find((id) => customerOwner(id, it.index) === undefined);
      if (missingCustomer !== undefined) {
        problems.push({ index: it.index, msg: `customer ${missingCustomer} not found in this project (nor earlier in the batch)` });
        continue;
      }
      const missingLink = it.refs.linkIds.find((id) => linkTags(id, it.index) === undefined);
      if (missingLink !== undefined)
        problems.push({ index: it.index, msg: `link ${missingLink} not found in this project (nor earlier in the batch)` });
    }
    if (problems.length > 0) throw invalid(problems);

    // A merged customer's id lands on the customer it was merged into (docs/ingestion.md, ADR 0027):
    // producers keep the ids they knew, the records join the survivor's history.
    const survivors = new Map<string, string>();
    for (const [id, c] of storedCustomers) if (c.merged_customer_id !== null) survivors.set(id, c.merged_customer_id);
    if (survivors.size > 0) {
      const missing = [...new Set(survivors.values())].filter((id) => !storedCustomers.has(id));
      for (const [id, c] of await repo.customers(ctx.database, appId, missing)) storedCustomers.set(id, c);
    }
    const survivorOf = (id: string): string => survivors.get(id) ?? id;
    if (survivors.size > 0) {
      for (const it of toWrite) {
        if (it.type === 'BehaviourLog') it.parsed.row.customer_id = survivorOf(it.parsed.row.customer_id);
        else if (it.type === 'Link' && it.parsed.row.customer_id) it.parsed.row.customer_id = survivorOf(it.parsed.row.customer_id);
        else if (it.type === 'Call' && it.parsed.row.customer_id) {
          const row = it.parsed.row;
          const was = row.customer_id as string;
          row.customer_id = survivorOf(was);
          if (row.from_user_type === 1 && row.from_user_id === was) row.from_user_id = row.customer_id;
          if (row.to_user_type === 1 && row.to_user_id === was) row.to_user_id = row.customer_id;
        }
      }
    }

    // Rows per table, behaviour events and rollups, all computed before the transaction opens.
    const behaviours = toWrite.filter((it): it is Item & { type: 'BehaviourLog' } => it.type === 'BehaviourLog');
    const events: EventMessage[] = [];
    const rollups = new Map<string, Insertable<BehaviourRollupsTable>>();
    const bump = (customer: string, day: string, kind: string, key: string) => {
      const k = `${customer}\u0000${day}\u0000${kind}\u0000${key}`;
      const r = rollups.get(k);
      if (r) r.count = Number(r.count) + 1;
      else rollups.set(k, { app_id: appId, customer_id: customer, day, kind, key, count: 1 });
    };
    const behaviourRows = behaviours.map((it) => {
      const p = it.parsed;
      const row = p.row;
      if (p.ownerFromCustomer) row.svc_user_id = String(customerOwner(row.customer_id, it.index));
      const day = clock.format(row.when_at).slice(0, 10);
      const tags = p.linkId === null ? undefined : linkTags(p.linkId, it.index);
      for (const [kind, key] of overviewKeys(row.action, p.content, tags)) bump(row.customer_id, day, kind, key);
      // The event's body is the stored record's: the outbox row references it instead of copying it.
      events.push({ event_type: 'create', domainType: 'BehaviourLog', domainId: row.id, body: RECORD_BODY });
      return row;
    });

    const customers = toWrite.filter((it): it is Item & { type: 'Customer' } => it.type === 'Customer');
    const rows: PlanRows = { links: [], link_view_logs: [], link_view_durations: [], clues: [], calls: [], posts: [] };
    for (const it of toWrite) {
      if (it.type === 'Link') rows.links.push(it.parsed.row);
      else if (it.type === 'LinkViewLog') {
        rows.link_view_logs.push(it.parsed.row);
        rows.link_view_durations.push(...it.parsed.durations);
      } else if (it.type === 'Clue') rows.clues.push(it.parsed.row);
      else if (it.type === 'Call') rows.calls.push(it.parsed.row);
      else if (it.type === 'Post') rows.posts.push(it.parsed.row);
    }
    return {
      result: { accepted: toWrite.length, duplicates },
      plan: {
        appId,
        now,
        customers: customers.map((it) => ({ index: it.index, input: it.body, ownerId: it.ownerId ?? defaultOwner, id: it.domainId })),
        rows,
        behaviourRows,
        events,
        rollups: [...rollups.values()],
        records: toWrite.length,
      },
    };
  }

  const rowsOf = (plan: WritePlan): RowsPlan => ({ ...plan, outbox: eventRows(plan.appId, plan.events, plan.now) });

  /** Writes a batch in a transaction of its own: customers first (others may reference them), then the rest. */
  async function writeAlone(trx: Transaction<Database>, plan: WritePlan): Promise<void> {
    if (plan.customers.length > 0) {
      const failed = await writeCustomers(trx, plan.appId, plan.customers, plan.now);
      if (failed) {
        const index = plan.customers[failed.position]?.index ?? 0;
        if (failed.error.kind === 'envelope') throw invalid([{ index, msg: `${failed.error.code}: ${failed.error.message}` }]);
        throw failed.error;
      }
    }
    await repo.writeRows(trx, [rowsOf(plan)]);
  }

  /**
   * Small batches without customers join other requests' in one transaction (the repository's
   * group commit); customers, whose writer validates inside the transaction, and big batches,
   * which are a group on their own, get a transaction of their own.
   */
  async function write(plan: WritePlan): Promise<void> {
    if (plan.records === 0) return;
    if (plan.customers.length > 0 || plan.records > GROUPED_MAX_RECORDS) {
      await db.transaction().execute((trx) => writeAlone(trx, plan));
      return;
    }
    try {
      await repo.writeGrouped(rowsOf(plan));
    } catch (err) {
      if (err instanceof CommitQueueFull) throw overloaded(err.retryAfterSeconds, err.message);
      throw err;
    }
  }

  /** One batch of an authorized caller: validated whole, written once (retried when a concurrent batch raced it). */
  async function ingestBatch(caller: IngestCaller, payload: unknown): Promise<IngestResult> {
    const { appId, defaultOwner } = caller;
    if (!Array.isArray(payload)) throw failure('invalid_events', 'The body must be a JSON array of event messages', { errors: [] });
    if (payload.length > MAX_EVENTS) {
      throw failure('invalid_events', `A batch holds at most ${MAX_EVENTS} event messages`, { errors: [] });
    }
    // A concurrent batch may store the same record between our check and our insert: the
    // retry sees it as a duplicate, which keeps ingestion idempotent under races. A deadlock
    // with a concurrent batch rolled this one back whole, so running it again is safe too.
    for (let attempt = 1; ; attempt += 1) {
      try {
        const { result, plan } = await runBatch(appId, payload, defaultOwner);
        await write(plan);
        return result;
      } catch (err) {
        if (attempt >= 3 || !(isUniqueViolation(err) || isTransientConflict(err))) throw err;
      }
    }
  }

  /** The rows of a viewer write; throws (an internal error: the viewer made a body the parsers refuse) on a bad body. */
  function viewerRows(w: ViewerWrite): ViewerRows {
    const { appId, now } = w;
    const pc = (domainId: string): ParseContext => ({ appId, domainId, clock, now });
    const rows: PlanRows = { links: [], link_view_logs: [], link_view_durations: [], clues: [], calls: [], posts: [] };
    for (const v of w.viewLogs ?? []) {
      const parsed = parseViewLog(v.body, pc(v.id));
      rows.link_view_logs.push({ ...parsed.row, ...v.state });
      rows.link_view_durations.push(...parsed.durations);
    }
    for (const c of w.clues ?? []) rows.clues.push(parseClue(c.body, pc(c.id)).row);
    const events: EventMessage[] = [...(w.events ?? [])];
    const rollups = new Map<string, Insertable<BehaviourRollupsTable>>();
    const behaviourRows = (w.behaviours ?? []).map((b) => {
      const p = parseBehaviour(b.body, pc(b.id));
      const day = clock.format(p.row.when_at).slice(0, 10);
      for (const [kind, key] of overviewKeys(p.row.action, p.content, p.linkId === null ? undefined : w.linkTags)) {
        const k = `${p.row.customer_id}\u0000${day}\u0000${kind}\u0000${key}`;
        const r = rollups.get(k);
        if (r) r.count = Number(r.count) + 1;
        else rollups.set(k, { app_id: appId, customer_id: p.row.customer_id, day, kind, key, count: 1 });
      }
      events.push({ event_type: 'create', domainType: 'BehaviourLog', domainId: p.row.id, body: RECORD_BODY });
      return p.row;
    });
    const g = w.progress;
    const progress: ViewerRows['progress'] =
      g === undefined
        ? null
        : {
            appId,
            viewLogId: g.viewLogId,
            fromSeq: g.fromSeq,
            set: {
              ...g.state,
              total_duration: g.totals.totalDuration,
              total_page: g.totals.totalPage,
              leave_time: g.totals.leaveTime === null ? null : clock.format(g.totals.leaveTime),
            },
            durations: g.durations.map((d) => parseDuration(d.body, d.position, appId, g.viewLogId, clock)),
          };
    const site = w.site === undefined ? null : siteRows(w.site, appId, now);
    const records = rows.link_view_logs.length + rows.clues.length + behaviourRows.length + (site?.anonymous.length ?? 0);
    return {
      site,
      rows,
      behaviourRows,
      outbox: eventRows(appId, events, now),
      rollups: [...rollups.values()],
      records,
      progress,
      attribute: w.attribute ? { appId, ...w.attribute } : null,
      viewClue: w.viewClue ? { appId, ...w.viewClue } : null,
    };
  }

  /**
   * Site rows: an anonymous record is checked now by the Behaviour record rules (under a stand-in
   * customer), so that joining it to a customer later cannot fail.
   */
  function siteRows(s: SiteWrite, appId: string, now: number): SiteRows {
    const anonymous = (s.anonymous ?? []).map((a) => {
      const parsed = parseBehaviour({ ...a.body, customerId: 'anonymous' }, { appId, domainId: a.id, clock, now });
      return {
        app_id: appId,
        id: a.id,
        visitor_id: a.visitorId,
        when_at: parsed.row.when_at,
        body: JSON.stringify(a.body),
        created_at: now,
      };
    });
    return {
      appId,
      visits: (s.visits ?? []).map((v) => ({
        app_id: appId,
        visitor_id: v.visitorId,
        id: v.id,
        started_at: v.at,
        last_at: v.at,
        ended_at: null,
        site: v.site,
        referrer: v.referrer,
        post_id: v.postId,
      })),
      anonymous,
      tie:
        s.tie === undefined
          ? null
          : {
              row: {
                app_id: appId,
                id: s.tie.visitorId,
                customer_id: s.tie.customerId,
                verified: s.tie.verified ? 1 : 0,
                via: s.tie.via,
                created_at: now,
                updated_at: now,
              },
              joined: s.tie.joined,
            },
      close: s.close === undefined ? null : { ...s.close, endedAt: now },
      guard: s.guard ?? null,
      quota: s.dailyCap === undefined || s.dailyCap === 0 || anonymous.length === 0 ? null : { day: clock.day(now), cap: s.dailyCap },
    };
  }

  return {
    /**
     * Writes what the public viewer records (docs/links.md) with the rules and statements of a
     * batch: in `trx` when given (a form, with its customer), else grouped with other small writes.
     * False when the write's `progress` found its view moved on, or its site guard failed: then nothing was written.
     */
    async recordViewer(w: ViewerWrite, trx?: Transaction<Database>): Promise<boolean> {
      let plan: ViewerRows;
      try {
        plan = viewerRows(w);
      } catch (err) {
        if (err instanceof ItemError) throw new Error(`the viewer made a record the ingestion rules refuse: ${err.message}`);
        throw err;
      }
      if (trx !== undefined) {
        await repo.writeViewer(trx, [plan]);
        return plan.applied === true;
      }
      const spent = () => {
        const end = clock.dayEnd(w.now);
        return quotaExceeded(
          (end - clock.now()) / 1000,
          `The project's daily quota of ${w.site?.dailyCap ?? 0} anonymous site records is spent until ${clock.format(end)}; nothing was written`,
        );
      };
      try {
        await repo.writeViewerGrouped(plan);
      } catch (err) {
        if (err instanceof CommitQueueFull) throw overloaded(err.retryAfterSeconds, err.message);
        // Written alone, it still met another process taking the quota's last room.
        if (err instanceof QuotaTaken) throw spent();
        throw err;
      }
      if (plan.refusedForQuota === true) throw spent();
      return plan.applied === true;
    },

    /**
     * Who may ingest into the project: the project secret, else a Master/Admin token. Checked
     * before the body is read; the result is what `ingest` takes.
     */
    authorize,

    async ingest(caller: IngestCaller, payload: unknown): Promise<IngestResult> {
      try {
        const result = await ingestBatch(caller, payload);
        ctx.observer.ingested(result);
        return result;
      } catch (err) {
        ctx.observer.ingested({ refused: err instanceof AppError ? err.code : 'internal_error' });
        throw err;
      }
    },
  };
}

export type IngestService = ReturnType<typeof createIngestService>;
