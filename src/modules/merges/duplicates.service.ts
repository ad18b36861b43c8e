import type { Page } from '../../http/paging.ts';
import { badRequest } from '../../http/errors.ts';
import type { Clock } from '../../lib/time.ts';
import type { AccessService, Actor } from '../access/service.ts';
import { type CustomerMerging, type CustomerResponse, type CustomerRow, toCustomer } from '../customers/service.ts';

export type DuplicateKind = 'phone' | 'email' | 'name_company';
export interface DuplicateSet {
  by: DuplicateKind;
  value: string;
  customers: CustomerResponse[];
}

/** The duplicates finder (the duplicates page, before a merge): its own caller of the merges module. */
export function createDuplicates(deps: { access: AccessService; customers: CustomerMerging; clock: Clock }) {
  const { access, customers, clock } = deps;
  /**
   * Sets of live customers the caller may see that share a mobile number, an e-mail (in any case)
   * or a name and company: `by` one kind, paged by set.
   */
  return async function duplicates(actor: Actor, q: { pathUserId: string; by: string | undefined; page: Page }): Promise<DuplicateSet[]> {
    const { pathUserId, by, page: p } = q;
    const m = actor;
    const appId = actor.app.id;
    let requested: number | undefined;
    if (pathUserId !== 'all') {
      if (!/^\d{1,10}$/.test(pathUserId)) throw badRequest("Invalid path parameter 'svc-user-id': a platform user id or 'all'");
      requested = Number(pathUserId);
    }
    const ownerId = access.visibleOwner(m, requested);
    const kind = (by ?? 'phone') as DuplicateKind;
    if (!['phone', 'email', 'name_company'].includes(kind)) throw badRequest("Invalid parameter 'by': phone, email or name_company");
    const scope = { appId, ownerId, by: kind };
    const keys = await customers.duplicateKeys(scope, p);
    const rows = await customers.duplicateMembers(scope, keys);
    const keyOf = (r: CustomerRow) =>
      kind === 'phone' ? (r.phone_key ?? '') : kind === 'email' ? (r.email_lower ?? '') : `${r.name ?? ''}\u0001${r.company ?? ''}`;
    const twin = (r: CustomerRow, set: CustomerRow[]) =>
      set.some(
        (o) =>
          o.id !== r.id &&
          o.owner_id === r.owner_id &&
          ((r.phone_key !== null && r.phone_key !== '' && o.phone_key === r.phone_key) ||
            (r.email_lower !== null && r.email_lower !== '' && o.email_lower === r.email_lower)),
      );
    return keys.map((k) => {
      const set = rows.filter((r) => keyOf(r) === k);
      return {
        by: kind,
        // A phone set is made by the numbers' key; its value is the number as its earliest customer has it.
        value: kind === 'name_company' ? k.replace('\u0001', ' / ') : kind === 'phone' ? (set[0]?.phone ?? k) : k,
        customers: set.map((r) => toCustomer(r, clock, twin(r, set) ? 1 : 0)),
      };
    });
  };
}
