import type { Kysely } from 'kysely';
import type { AppContext } from '../../context.ts';
import type { Database } from '../../db/index.ts';
import { type EventMessage, writeEvents } from '../../events/outbox.ts';
import { failure, forbidden } from '../../http/errors.ts';
import type { AccessService, Actor } from '../access/service.ts';
import type { AuditRecorder } from '../audit/service.ts';
import type { GroupsService } from '../groups/service.ts';
import type { MembersService } from '../members/service.ts';
import { customerBulkRepository as bulkRepo } from './bulk.repository.ts';
import type { CustomerRow } from './mapper.ts';
import { customerEvent } from './records.ts';
import type { CustomerLists, ListParams } from './list.service.ts';
import { customersRepository as repo } from './repository.ts';

/** A customer a bulk step could not change, and why (an error code of src/http/error-codes.ts). */
export interface BulkFailure {
  customerId: string;
  code: string;
  reason: string;
}

/** What one bulk step did: the customers it changed (or found already as asked), and those it could not. */
export interface BulkOutcome {
  done: string[];
  failures: BulkFailure[];
}

/** "All matching": whose customers (the list path's member: a platform user id, or 'all') and the list's filters, read as the list reads them. */
export interface MatchingInput {
  ownerId: string;
  params: ListParams;
  /** The most ids answered (one more than a job may take tells the caller it was too many). */
  limit: number;
}

/** A bulk step: the customers of one batch, at one time. */
export interface BulkStep {
  ids: string[];
  now: number;
}

const notFound = (customerId: string): BulkFailure => ({ customerId, code: 'customer_not_found', reason: 'No such customer' });

/**
 * What the bulk module does with customers (docs/customers.md "Bulk actions"), by the rules of the
 * single-customer operations: a customer the actor may not see (a Sales member: another's) or that
 * is deleted fails on its own, as `customer_not_found`, and is not touched; the others change, each
 * with its event and audit entry, in the caller's transaction (one batch).
 */
export function createCustomerBulk(
  ctx: AppContext,
  deps: { access: AccessService; groups: GroupsService; members: MembersService; audit: AuditRecorder; lists: CustomerLists },
) {
  const { groups, members, audit, lists } = deps;
  const db: Kysely<Database> = ctx.database.db;
  const clock = ctx.clock;

  /** The batch's customers the actor may see and that are live; the rest as failures. */
  async function liveOf(trx: Kysely<Database>, actor: Actor, ids: string[]): Promise<{ rows: CustomerRow[]; failures: BulkFailure[] }> {
    const found = new Map((await repo.findMany(ctx.database.readerFor(trx), actor.app.id, ids)).map((r) => [r.id, r]));
    const rows: CustomerRow[] = [];
    const failures: BulkFailure[] = [];
    for (const id of ids) {
      const row = found.get(id);
      if (!row || row.status !== 1 || (!actor.isManager && row.owner_id !== actor.userId)) failures.push(notFound(id));
      else rows.push(row);
    }
    return { rows, failures };
  }

  /** Each changed row's event, written with the batch. */
  async function changed(trx: Kysely<Database>, actor: Actor, updated: (CustomerRow | undefined)[], now: number): Promise<void> {
    const events: EventMessage[] = updated.filter((r): r is CustomerRow => r !== undefined).map((r) => customerEvent(clock, 'update', r));
    await writeEvents(trx, actor.app.id, events, now);
  }

  return {
    /**
     * The ids of the live customers the list's filters match under the actor's visibility (a Sales
     * member: their own; Master/Admin: everyone's or one member's), in id order.
     */
    async matchingIds(actor: Actor, input: MatchingInput): Promise<string[]> {
      // The list's own reading of its filters (visibility, keyword, group, number, activity and period), so a bulk action covers what the list shows.
      const { scope, filter } = await lists.customerListFilter(actor, { ownerId: input.ownerId, params: input.params });
      return bulkRepo.matchingIds(db, scope, filter, input.limit);
    },

    /** Whether the actor may give customers to `target` (Master/Admin: any active member; Sales: themselves), checked before a job starts. */
    async checkAssignee(actor: Actor, target: number): Promise<boolean> {
      if (!actor.isManager && target !== actor.userId)
        throw forbidden('Only the project Master or an Admin may assign a customer to another member');
      return members.isActiveMember(db, actor.app.id, target);
    },

    /** The group a bulk move names, if the actor may see it (its owner's customers alone may join it). */
    async checkGroup(actor: Actor, groupId: string): Promise<{ ownerId: number }> {
      const g = await groups.visible(db, actor, groupId);
      return { ownerId: g.owner_id };
    },

    /** Gives a batch's customers to `target`, as an owner transfer does (group cleared, "new" for the new owner). */
    async assignInTransaction(trx: Kysely<Database>, actor: Actor, step: BulkStep & { target: number }): Promise<BulkOutcome> {
      const { target, now } = step;
      if (!actor.isManager && target !== actor.userId)
        throw forbidden('Only the project Master or an Admin may assign a customer to another member');
      if (!(await members.isActiveMember(trx, actor.app.id, target))) throw failure('target_svc_userid_invalid');
      const { rows, failures } = await liveOf(trx, actor, step.ids);
      const moving = rows.filter((r) => r.owner_id !== target);
      const updated = [];
      for (const row of moving) {
        updated.push(
          await repo.update(trx, actor.app.id, row.id, {
            owner_id: target,
            group_id: null,
            allocation_user_id: String(target),
            is_new: 1,
            detail_viewed_at: null,
            seen_behaviour_count: 0,
            updated_at: now,
          }),
        );
        const detail = { from: String(row.owner_id), to: String(target), bulk: true };
        await audit(trx, {
          appId: actor.app.id,
          actorId: actor.userId,
          action: 'customer.transfer_owner',
          targetType: 'customer',
          targetId: row.id,
          detail,
        });
      }
      await changed(trx, actor, updated, now);
      return { done: rows.map((r) => r.id), failures };
    },

    /** Puts a batch's customers in a group; a customer whose owner is not the group's fails (`group_owner_mismatch`). */
    async groupInTransaction(trx: Kysely<Database>, actor: Actor, step: BulkStep & { groupId: string }): Promise<BulkOutcome> {
      const { now } = step;
      const group = await groups.visible(trx, actor, step.groupId);
      const { rows, failures } = await liveOf(trx, actor, step.ids);
      const done: string[] = [];
      const updated = [];
      for (const row of rows) {
        if (row.owner_id !== group.owner_id) {
          failures.push({
            customerId: row.id,
            code: 'group_owner_mismatch',
            reason: "The group belongs to another member than the customer's owner",
          });
          continue;
        }
        done.push(row.id);
        if (row.group_id === group.id) continue;
        updated.push(await repo.update(trx, actor.app.id, row.id, { group_id: group.id, updated_at: now }));
        const detail = { from: row.group_id ?? null, to: group.id, bulk: true };
        await audit(trx, {
          appId: actor.app.id,
          actorId: actor.userId,
          action: 'customer.transfer_group',
          targetType: 'customer',
          targetId: row.id,
          detail,
        });
      }
      await changed(trx, actor, updated, now);
      return { done, failures };
    },

    /** Deletes a batch's customers (soft delete, as the single delete: status 0, its `delete` event). */
    async removeInTransaction(trx: Kysely<Database>, actor: Actor, step: BulkStep): Promise<BulkOutcome> {
      const { now } = step;
      const { rows, failures } = await liveOf(trx, actor, step.ids);
      const events: EventMessage[] = [];
      for (const row of rows) {
        const updated = await repo.update(trx, actor.app.id, row.id, { status: 0, updated_at: now });
        if (updated) events.push(customerEvent(clock, 'delete', updated));
        await audit(trx, {
          appId: actor.app.id,
          actorId: actor.userId,
          action: 'customer.delete',
          targetType: 'customer',
          targetId: row.id,
          detail: { bulk: true },
        });
      }
      await writeEvents(trx, actor.app.id, events, now);
      return { done: rows.map((r) => r.id), failures };
    },

    /** Of a batch, the customers the actor may see and that are live (an export's or a campaign's), and the others as failures. */
    async visibleInTransaction(trx: Kysely<Database>, actor: Actor, ids: string[]): Promise<BulkOutcome> {
      const { rows, failures } = await liveOf(trx, actor, ids);
      return { done: rows.map((r) => r.id), failures };
    },
  };
}

export type CustomerBulk = ReturnType<typeof createCustomerBulk>;
