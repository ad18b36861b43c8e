import { badRequest, failure } from '../../http/errors.ts';

/**
 * The transfer endpoints' inputs checked and parsed (docs/interface.md §9), before anything is read:
 * at most 1000 customers a call, none named twice.
 */

export const MAX_TRANSFER_ITEMS = 1000;

/** One item of an owner transfer's `datas`, as sent (the misspelt names are the interface's). */
export interface TransferItem {
  customerId?: unknown;
  srouceGroupId?: unknown;
  srouceSvcUserId?: unknown;
}

/** An owner transfer's item: the customer, and the group and owner the caller believes it has. */
export interface OwnerTransferItem {
  customerId: string;
  group: string | undefined;
  owner: string | undefined;
}

/** What the group transfer endpoint takes. */
export interface GroupTransferInput {
  source_group_id?: string | undefined;
  target_group_id?: string | undefined;
  customer_ids?: string | undefined;
}

/** `datas` of an owner transfer: a JSON array (or its text) of items, each naming a customer once. */
export function ownerTransferItems(datas: unknown): OwnerTransferItem[] {
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
  return parsed;
}

/** The customer ids of a group transfer (comma-separated, duplicates dropped), its parameters all given. */
export function groupTransferIds(input: GroupTransferInput): string[] {
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
  return ids;
}
