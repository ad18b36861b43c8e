import type { Insertable, Kysely } from 'kysely';
import type { BehaviourLogsTable, Database } from '../../db/index.ts';
import { failure } from '../../http/errors.ts';
import type { AccessService, Actor } from '../access/service.ts';
import type { CustomersService, VisibleCustomer } from '../customers/service.ts';
import type { IngestService } from '../ingest/service.ts';

/**
 * The records of the team's notes and tasks in the customer's timeline, written and removed by the
 * behaviour module (its `createBehaviourRecords`, handed over by the composition root), in this
 * module's transaction.
 */
export interface TeamRecordWriter {
  insert(trx: Kysely<Database>, rows: Insertable<BehaviourLogsTable>[]): Promise<void>;
  removeTeamRecords(trx: Kysely<Database>, appId: string, ids: string[]): Promise<number>;
}

/** What the tasks module is built with (src/services.ts). */
export interface TasksDeps {
  /** Members: the assignee, the people mentioned. */
  access: Pick<AccessService, 'memberRecord'>;
  /** The customers a member may see, as the customer list shows them. */
  customers: Pick<CustomersService, 'visibleLive' | 'liveCustomers'>;
  /** The timeline's records of notes and tasks. */
  records: TeamRecordWriter;
  /** Logged calls go through ingestion's write path (a Call record and its `call` behaviour record). */
  ingest: Pick<IngestService, 'ingest'>;
}

/** Characters of a text (code points: a CJK character or an emoji is one). */
export const characters = (text: string): number => Array.from(text).length;

/** The live customer if the actor's customer list shows it; customer_not_found otherwise (missing, another project's or not theirs alike). */
export async function visibleCustomer(
  deps: Pick<TasksDeps, 'customers'>,
  actor: Actor,
  customerId: string,
  executor?: Kysely<Database>,
): Promise<VisibleCustomer> {
  const found = (await deps.customers.visibleLive(actor, [customerId], executor)).get(customerId);
  if (found === undefined) throw failure('customer_not_found');
  return found;
}

/**
 * Whether a platform user is an active member of the project who may see the customer: the Master
 * and Admins see every customer, a Sales member their own.
 */
export async function maySee(deps: Pick<TasksDeps, 'access'>, appId: string, userId: number, customer: VisibleCustomer): Promise<boolean> {
  const m = await deps.access.memberRecord(appId, userId);
  if (m === null || m.status !== 0) return false;
  return m.role === 'Master' || m.role === 'Admin' || userId === customer.ownerId;
}
