import type { Insertable, Kysely } from 'kysely';
import type { BehaviourLogsTable, Database } from '../../db/index.ts';
import type { EventMessage, EventType } from '../../events/outbox.ts';
import { badRequest, failure, forbidden } from '../../http/errors.ts';
import { timeOrderedUuid } from '../../lib/ids.ts';
import type { Clock } from '../../lib/time.ts';
import type { Actor } from '../access/service.ts';
import type { MembersService } from '../members/service.ts';
import { type CustomerResponse, type CustomerRow, toCustomer } from './mapper.ts';

/**
 * What the customers module's services share: the createWay values, the customer's own behaviour
 * record, its events, and the checks of who may see a customer and for whom the caller acts.
 */

export const DEFAULT_CREATE_WAY = 6;
/** createWay of a customer a visitor's form made (docs/links.md). */
export const FORM_CREATE_WAY = 5;
/** createWay of an imported customer: batch upload (docs/interface.md §9). */
export const IMPORT_CREATE_WAY = 7;

export const customerNotFound = () => failure('customer_not_found');

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

/** The Customer event of a change to a row. */
export function customerEvent(clock: Clock, type: EventType, row: CustomerRow, whetherMerge = 0): EventMessage {
  return { event_type: type, domainType: 'Customer', domainId: row.id, body: toCustomer(row, clock, whetherMerge) };
}

/** The customer if the actor may see it; customer_not_found otherwise (missing or invisible alike). */
export function visible(actor: Actor, row: CustomerRow | undefined): CustomerRow {
  if (!row || row.app_id !== actor.app.id || (!actor.isManager && row.owner_id !== actor.userId)) throw customerNotFound();
  return row;
}

/**
 * The path's acting member (`svc-user-id`): the actor, or (for Master/Admin) another active member
 * of the project.
 */
export async function actingMember(members: MembersService, db: Kysely<Database>, actor: Actor, pathUserId: string): Promise<number> {
  if (!/^\d{1,10}$/.test(pathUserId)) throw badRequest("Invalid path parameter 'svc-user-id': must be a platform user id");
  const acting = Number(pathUserId);
  if (acting !== actor.userId) {
    if (!actor.isManager) throw forbidden('Sales members act only as themselves');
    if (!(await members.isActiveMember(db, actor.app.id, acting)))
      throw failure('svc_user_id_invalid', 'svc-user-id is not a member of this project');
  }
  return acting;
}
