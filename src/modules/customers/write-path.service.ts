import type { Kysely } from 'kysely';
import type { AppContext } from '../../context.ts';
import type { Database } from '../../db/index.ts';
import type { AppError } from '../../http/errors.ts';
import type { CreateOptions, CreatePath, ListOptions, NewCustomer } from './create-path.ts';
import type { CustomerResponse } from './mapper.ts';
import { FORM_CREATE_WAY } from './records.ts';
import { phoneKey } from '../../lib/phones.ts';
import { customersRepository as repo } from './repository.ts';
import { customerWritesRepository as writes } from './writes.repository.ts';

/** What the public viewer knows of a customer: who it is and whose. */
export interface ViewerCustomer {
  id: string;
  name: string | null;
  ownerId: number;
}

/** A visitor's form (docs/links.md): its fields, the owner of a customer it makes, and when. */
export interface FormInput {
  input: Record<string, unknown>;
  ownerId: number;
  now: number;
}

/**
 * The customers' write path for the modules that write customers without a member's request:
 * ingestion's Customer items, the share-link viewer's form and the site snippet (which also read
 * the customers they attribute views and visits to). Everything inside the caller's transaction
 * goes through the create path's validation, as the create endpoint does.
 */
export function createCustomerWritePath(ctx: AppContext, deps: { path: CreatePath }) {
  const { path } = deps;
  const db: Kysely<Database> = ctx.database.db;
  const reader = ctx.database.reader;

  /**
   * Validates and stores customers in order inside the caller's transaction, each exactly as if
   * it had been created alone after the ones before it (uniqueness and whetherMerge see the
   * earlier ones), with one statement per table for the whole list (ingestion batches of
   * Customer items). The first invalid item stops the list: nothing is written and its
   * position and error are returned.
   */
  async function createManyInTransaction(
    trx: Kysely<Database>,
    appId: string,
    items: NewCustomer[],
    opts: ListOptions,
  ): Promise<{ customers: CustomerResponse[] } | { failed: { position: number; error: AppError } }> {
    if (items.length === 0) return { customers: [] };
    const batch = await path.batchFor(trx, appId, items, opts);
    const built = await path.validatedRows(batch, items);
    if ('failed' in built) return built;
    return { customers: await path.store(trx, appId, built, opts.now) };
  }

  return {
    createManyInTransaction,

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
      const result = await createManyInTransaction(trx, appId, [{ input, ownerId: opts.ownerId, id: opts.id }], opts);
      if ('failed' in result) throw result.failed.error;
      return result.customers[0] as CustomerResponse;
    },

    /** Live customers of the project among these ids, as the public viewer attributes views to them. */
    async viewerCustomers(appId: string, ids: string[]): Promise<Map<string, ViewerCustomer>> {
      const found = await repo.findMany(reader, appId, ids);
      const out = new Map(found.filter((r) => r.status === 1).map((r) => [r.id, { id: r.id, name: r.name, ownerId: r.owner_id }]));
      // A merged customer (a directed link's, a visitor's) is answered by the customer it was merged into.
      const merged = found.filter((r) => r.status === 2 && r.merged_customer_id !== null);
      if (merged.length > 0) {
        const survivors = new Map(
          (await repo.findMany(reader, appId, [...new Set(merged.map((r) => r.merged_customer_id as string))]))
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
      const key = phone === null ? null : phoneKey(phone, await path.regionOf(appId));
      const found = await writes.liveByContact(db, appId, key, email?.toLowerCase() ?? null);
      return found ? { id: found.id, name: found.name, ownerId: found.owner_id } : null;
    },

    /**
     * A visitor's form (docs/links.md), inside the caller's transaction: the live customer of the
     * project with the form's mobile number, else its e-mail, is matched and left as it is (a form
     * never edits a customer); otherwise a customer is created through the create path's validation
     * and unique rules, with createWay 5 and `ownerId` as owner. Null when the form names no customer
     * the project's attributes accept (a required attribute it lacks, a malformed value, a unique one taken).
     */
    async fromForm(trx: Kysely<Database>, appId: string, form: FormInput): Promise<{ customer: ViewerCustomer; created: boolean } | null> {
      const text = (v: unknown) => (typeof v === 'string' && v.trim() !== '' ? v.trim() : null);
      const phone = text(form.input.phone);
      const email = text(form.input.email)?.toLowerCase() ?? null;
      if (phone === null && email === null) return null;
      // The form's number matches a customer's however either was written.
      const key = phone === null ? null : phoneKey(phone, await path.regionOf(appId));
      const found = await writes.liveByContact(trx, appId, key, email);
      if (found) return { customer: { id: found.id, name: found.name, ownerId: found.owner_id }, created: false };
      const item = { input: { ...form.input, create_way: FORM_CREATE_WAY }, ownerId: form.ownerId };
      const result = await createManyInTransaction(trx, appId, [item], {
        now: form.now,
        validate: 'create',
        createWay: FORM_CREATE_WAY,
        mayAssignOthers: false,
      });
      if ('failed' in result) return null;
      const c = result.customers[0] as CustomerResponse;
      return { customer: { id: c.id, name: c.name, ownerId: Number(c.svcUserId) }, created: true };
    },
  };
}

export type CustomerWritePath = ReturnType<typeof createCustomerWritePath>;
