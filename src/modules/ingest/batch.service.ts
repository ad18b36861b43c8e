import type { BehaviourRollupsTable } from '../../db/index.ts';
import { isTransientConflict, isUniqueViolation } from '../../db/index.ts';
import type { Insertable } from 'kysely';
import type { AppContext } from '../../context.ts';
import { type EventMessage, RECORD_BODY } from '../../events/outbox.ts';
import { AppError, failure } from '../../http/errors.ts';
import type { AccessService } from '../access/service.ts';
import { overviewKeys } from '../behaviour/service.ts';
import type { ScopedTable } from './bodies.ts';
import { DOMAIN_TABLES, type Item, type ItemProblem, invalid, parseItem } from './items.ts';
import { type WritePlan, emptyPlanRows } from './plans.ts';
import { ItemError } from './reader.ts';
import type { AlsoWrite, RecordOwners, RecordWriter } from './write.service.ts';

export const MAX_EVENTS = 1000;

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

type StoredCustomers = Map<string, { owner_id: number; merged_customer_id: string | null }>;

/** What the references of a batch's new items resolve to: stored records, or earlier items of the batch. */
interface Resolved {
  stored: Map<ScopedTable, Map<string, string>>;
  customers: StoredCustomers;
  /** The owner of a customer stored or earlier than `index` in the batch. */
  customerOwner: (id: string, index: number) => number | undefined;
  /** The tags of a link stored or earlier than `index` in the batch. */
  linkTags: (id: string, index: number) => string[] | undefined;
}

/** A batch's items: the ones to write, and how many repeated a record of the batch or of the project. */
interface Sorted {
  toWrite: Item[];
  duplicates: number;
  stored: Map<ScopedTable, Map<string, string>>;
}

/**
 * The producers' batches (POST /events, campaigns): a whole batch validated, its references resolved
 * (to stored records and to earlier items of the batch), records already stored skipped, and the rest
 * written with their outbox events and overview rollups in ONE transaction.
 */
export function createBatchIngestion(ctx: AppContext, deps: RecordOwners & { access: AccessService; writer: RecordWriter }) {
  const { access, writer, behaviour, histories, links, customers: customerLookups } = deps;
  const clock = ctx.clock;
  const db = ctx.database.db;

  /** The project of each stored id of one table, through the table's owner. */
  function storedIn(table: ScopedTable, ids: string[]): Promise<Map<string, string>> {
    if (table === 'behaviour_logs') return behaviour.storedProjects(ids);
    if (table === 'calls' || table === 'clues' || table === 'posts') return histories.storedProjects(table, ids);
    if (table === 'customers') return customerLookups.storedProjects(ids);
    return links.storedProjects(table, ids);
  }

  function parseAll(appId: string, payload: unknown[], now: number): { items: Item[]; problems: ItemProblem[] } {
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
    return { items, problems };
  }

  /** Repeats inside the batch and records stored earlier are skipped, not overwritten; ids of another project's records are refused. */
  async function sortOut(appId: string, items: Item[], problems: ItemProblem[]): Promise<Sorted> {
    const seen = new Set<string>();
    const fresh: Item[] = [];
    let duplicates = 0;
    // Other records the items name are looked up with the same statements (one per table): an id
    // another project's record has is refused later.
    const lookups = new Map<ScopedTable, Set<string>>();
    const lookUp = (table: ScopedTable, id: string) => {
      const set = lookups.get(table) ?? new Set<string>();
      set.add(id);
      lookups.set(table, set);
    };
    for (const it of items) {
      const key = `${it.type}\u0000${it.domainId}`;
      if (seen.has(key)) {
        duplicates += 1;
        continue;
      }
      seen.add(key);
      fresh.push(it);
      lookUp(DOMAIN_TABLES[it.type], it.domainId);
    }
    for (const it of fresh) for (const ref of it.refs.scoped) lookUp(ref.table, ref.id);
    const stored = new Map<ScopedTable, Map<string, string>>();
    await Promise.all(
      [...lookups].map(async ([table, ids]) => {
        stored.set(table, await storedIn(table, [...ids]));
      }),
    );
    const toWrite: Item[] = [];
    for (const it of fresh) {
      const owner = stored.get(DOMAIN_TABLES[it.type])?.get(it.domainId);
      if (owner === undefined) toWrite.push(it);
      else if (owner === appId) duplicates += 1;
      else problems.push({ index: it.index, msg: `${it.type} id ${it.domainId} is already used by another project` });
    }
    return { toWrite, duplicates, stored };
  }

  /** Share tokens make link URLs, so two links may never share one. */
  async function checkShareTokens(toWrite: Item[], problems: ItemProblem[]): Promise<void> {
    const tokens = new Map<string, number>();
    for (const it of toWrite) {
      if (it.type !== 'Link') continue;
      const token = it.parsed.row.share_token;
      if (tokens.has(token)) problems.push({ index: it.index, msg: 'shareToken is already used by an earlier link of the batch' });
      else tokens.set(token, it.index);
    }
    for (const index of await links.takenShareTokens(db, tokens)) {
      problems.push({ index, msg: 'shareToken is already used by another link' });
    }
  }

  /**
   * Platform user ids named as the project's people: each must have a member record in the project
   * (active or removed: records of former members stay valid). The access module's cached lookup
   * answers most without a statement.
   */
  async function membersNamed(appId: string, toWrite: Item[]): Promise<Map<number, boolean>> {
    const memberRefs = new Set<number>();
    for (const it of toWrite) for (const ref of it.refs.memberIds) memberRefs.add(ref.id);
    return new Map(await Promise.all([...memberRefs].map(async (id) => [id, (await access.memberRecord(appId, id)) !== null] as const)));
  }

  /** The owners Customer items name that are active members of the project, through the same cached look-up. */
  async function activeOwners(appId: string, toWrite: Item[]): Promise<Set<number>> {
    const ownerIds = new Set<number>();
    for (const it of toWrite) if (it.type === 'Customer' && it.ownerId !== null) ownerIds.add(it.ownerId);
    const active = await Promise.all([...ownerIds].map(async (id) => ((await access.memberRecord(appId, id))?.status === 0 ? [id] : [])));
    return new Set(active.flat());
  }

  /** References resolve to stored records of the project or to earlier items of this batch. */
  async function resolve(
    caller: IngestCaller,
    sorted: Sorted,
    problems: ItemProblem[],
  ): Promise<{ resolved: Resolved; isMember: Map<number, boolean> }> {
    const { appId, defaultOwner } = caller;
    const { toWrite } = sorted;
    const customerRefs = new Set<string>();
    const linkRefs = new Set<string>();
    for (const it of toWrite) {
      for (const id of it.refs.customerIds) customerRefs.add(id);
      for (const id of it.refs.linkIds) linkRefs.add(id);
    }
    const [customers, storedLinks, isMember] = await Promise.all([
      customerLookups.ofProject(appId, [...customerRefs]),
      links.tagsOf(db, appId, [...linkRefs]),
      membersNamed(appId, toWrite),
    ]);
    const members = await activeOwners(appId, toWrite);
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
      const b = batchCustomers.get(id);
      return customers.get(id)?.owner_id ?? (b && b.index < index ? b.owner : undefined);
    };
    const linkTags = (id: string, index: number): string[] | undefined => {
      const b = batchLinks.get(id);
      return storedLinks.get(id) ?? (b && b.index < index ? b.tags : undefined);
    };
    return { resolved: { stored: sorted.stored, customers, customerOwner, linkTags }, isMember };
  }

  /** The first reference of each item that does not resolve, as a problem. */
  function checkReferences(
    appId: string,
    toWrite: Item[],
    r: { resolved: Resolved; isMember: Map<number, boolean> },
    problems: ItemProblem[],
  ): void {
    const { stored, customerOwner, linkTags } = r.resolved;
    for (const it of toWrite) {
      const foreign = it.refs.scoped.find((ref) => {
        const project = stored.get(ref.table)?.get(ref.id);
        return project !== undefined && project !== appId;
      });
      if (foreign !== undefined) {
        problems.push({ index: it.index, msg: `${foreign.field} ${foreign.id} is a record of another project` });
        continue;
      }
      const outsider = it.refs.memberIds.find((ref) => r.isMember.get(ref.id) !== true);
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
  }

  /**
   * A merged customer's id lands on the customer it was merged into (docs/ingestion.md, ADR 0027):
   * producers keep the ids they knew, the records join the survivor's history.
   */
  async function followMerges(appId: string, customers: StoredCustomers, toWrite: Item[]): Promise<void> {
    const survivors = new Map<string, string>();
    for (const [id, c] of customers) if (c.merged_customer_id !== null) survivors.set(id, c.merged_customer_id);
    if (survivors.size === 0) return;
    const missing = [...new Set(survivors.values())].filter((id) => !customers.has(id));
    for (const [id, c] of await customerLookups.ofProject(appId, missing)) customers.set(id, c);
    const survivorOf = (id: string): string => survivors.get(id) ?? id;
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

  /** Rows per table, behaviour events and rollups, all computed before the transaction opens. */
  function planOf(caller: IngestCaller, toWrite: Item[], resolved: Resolved, now: number): WritePlan {
    const { appId } = caller;
    const events: EventMessage[] = [];
    const rollups = new Map<string, Insertable<BehaviourRollupsTable>>();
    const bump = (customer: string, day: string, kind: string, key: string) => {
      const k = `${customer}\u0000${day}\u0000${kind}\u0000${key}`;
      const r = rollups.get(k);
      if (r) r.count = Number(r.count) + 1;
      else rollups.set(k, { app_id: appId, customer_id: customer, day, kind, key, count: 1 });
    };
    const behaviourRows = toWrite.flatMap((it) => {
      if (it.type !== 'BehaviourLog') return [];
      const p = it.parsed;
      const row = p.row;
      if (p.ownerFromCustomer) row.svc_user_id = String(resolved.customerOwner(row.customer_id, it.index));
      const day = clock.format(row.when_at).slice(0, 10);
      const tags = p.linkId === null ? undefined : resolved.linkTags(p.linkId, it.index);
      for (const [kind, key] of overviewKeys(row.action, p.content, tags)) bump(row.customer_id, day, kind, key);
      // The event's body is the stored record's: the outbox row references it instead of copying it.
      events.push({ event_type: 'create', domainType: 'BehaviourLog', domainId: row.id, body: RECORD_BODY });
      return [row];
    });
    const rows = emptyPlanRows();
    const customers: WritePlan['customers'] = [];
    for (const it of toWrite) {
      if (it.type === 'Link') rows.links.push(it.parsed.row);
      else if (it.type === 'LinkViewLog') {
        rows.link_view_logs.push(it.parsed.row);
        rows.link_view_durations.push(...it.parsed.durations);
      } else if (it.type === 'Clue') rows.clues.push(it.parsed.row);
      else if (it.type === 'Call') rows.calls.push(it.parsed.row);
      else if (it.type === 'Post') rows.posts.push(it.parsed.row);
      else if (it.type === 'Customer')
        customers.push({ index: it.index, input: it.body, ownerId: it.ownerId ?? caller.defaultOwner, id: it.domainId });
    }
    return { appId, now, customers, rows, behaviourRows, events, rollups: [...rollups.values()], records: toWrite.length };
  }

  /** Validates one batch and computes its rows; throws invalid_events when any item is wrong. */
  async function runBatch(caller: IngestCaller, payload: unknown[]): Promise<{ result: IngestResult; plan: WritePlan }> {
    const now = clock.now();
    const { items, problems } = parseAll(caller.appId, payload, now);
    const sorted = await sortOut(caller.appId, items, problems);
    await checkShareTokens(sorted.toWrite, problems);
    const refs = await resolve(caller, sorted, problems);
    checkReferences(caller.appId, sorted.toWrite, refs, problems);
    if (problems.length > 0) throw invalid(problems);
    await followMerges(caller.appId, refs.resolved.customers, sorted.toWrite);
    return {
      result: { accepted: sorted.toWrite.length, duplicates: sorted.duplicates },
      plan: planOf(caller, sorted.toWrite, refs.resolved, now),
    };
  }

  /** One batch of an authorized caller: validated whole, written once (retried when a concurrent batch raced it). */
  async function ingestBatch(caller: IngestCaller, payload: unknown, alsoWrite?: AlsoWrite): Promise<IngestResult> {
    if (!Array.isArray(payload)) throw failure('invalid_events', 'The body must be a JSON array of event messages', { errors: [] });
    if (payload.length > MAX_EVENTS) {
      throw failure('invalid_events', `A batch holds at most ${MAX_EVENTS} event messages`, { errors: [] });
    }
    // A concurrent batch may store the same record between our check and our insert: the
    // retry sees it as a duplicate, which keeps ingestion idempotent under races. A deadlock
    // with a concurrent batch rolled this one back whole, so running it again is safe too.
    for (let attempt = 1; ; attempt += 1) {
      try {
        const { result, plan } = await runBatch(caller, payload);
        await writer.write(plan, alsoWrite);
        return result;
      } catch (err) {
        if (attempt >= 3 || !(isUniqueViolation(err) || isTransientConflict(err))) throw err;
      }
    }
  }

  return {
    /**
     * Ingests one batch of an authorized caller (see `authorize`), counted by the observer whatever its
     * outcome. `alsoWrite`: rows of the caller's own, written in the batch's transaction after it.
     */
    async ingest(caller: IngestCaller, payload: unknown, alsoWrite?: AlsoWrite): Promise<IngestResult> {
      try {
        const result = await ingestBatch(caller, payload, alsoWrite);
        ctx.observer.ingested(result);
        return result;
      } catch (err) {
        ctx.observer.ingested({ refused: err instanceof AppError ? err.code : 'internal_error' });
        throw err;
      }
    },
  };
}
