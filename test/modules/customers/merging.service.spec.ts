/**
 * The merges module's customers service: a merge's overrides validated as an edit of the composed
 * survivor, with a fake create path and a fake metadata service (no database: the transaction is
 * only handed on).
 */
import type { Kysely } from 'kysely';
import { describe, expect, it } from 'vitest';
import type { Database, DatabaseHandle } from '../../../src/db/index.ts';
import { AppError } from '../../../src/http/errors.ts';
import type { Actor } from '../../../src/modules/access/service.ts';
import type { CreatePath } from '../../../src/modules/customers/create-path.ts';
import type { CustomerRow } from '../../../src/modules/customers/mapper.ts';
import { createCustomerMerging } from '../../../src/modules/customers/merging.service.ts';
import type { MetadataRow, MetadataService } from '../../../src/modules/metadata/service.ts';
import { FakeClock } from '../../helpers/fake-clock.ts';

const APP = 'app-1';
const trx = {} as Kysely<Database>;
const clock = new FakeClock();

function attribute(name: string, type: string, extra: Partial<MetadataRow> = {}): MetadataRow {
  return {
    app_id: APP,
    name,
    type,
    title: name,
    is_ext: 0,
    is_unique: 0,
    required: 0,
    visiable: 1,
    sort_index: 0,
    default_value: null,
    option_values: null,
    readonly: 0,
    hidden: 0,
    searchable: 0,
    ...extra,
  };
}

const FORM: MetadataRow[] = [
  attribute('name', 'text', { required: 1 }),
  attribute('email', 'email', { is_unique: 1 }),
  attribute('company', 'text', { readonly: 1 }),
  attribute('svcUserId', 'owner'),
  attribute('ticket', 'text', { is_ext: 1 }),
];

const survivor = {
  id: 'c-1',
  app_id: APP,
  owner_id: 7,
  name: 'Li Lei',
  email: 'li@example.com',
  email_lower: 'li@example.com',
  company: 'ACME',
  ext: JSON.stringify({ level: 'gold' }),
  status: 1,
  created_at: clock.now(),
  updated_at: clock.now(),
} as CustomerRow;

function actor(isManager: boolean): Actor {
  return { app: { id: APP }, userId: 7, isManager, role: isManager ? 'Master' : 'Sales' } as unknown as Actor;
}

/** The service over a fake form and create path; `taken` are the e-mails other live customers have. */
function merging(taken: string[] = []) {
  const asked: { key: string; value: unknown; exceptId: string | undefined }[] = [];
  const members = new Set([7, 8]);
  const metadata = { rows: async () => FORM } as unknown as MetadataService;
  const path = {
    envFor: () => ({
      isActiveMember: async (userId: number) => members.has(userId),
      isGroupOf: async () => false,
      isTaken: async (key: string, value: unknown, exceptId: string | undefined) => {
        asked.push({ key, value, exceptId });
        return taken.includes(String(value));
      },
    }),
    whetherMerge: async (_from: unknown, row: CustomerRow) => (row.phone === '13800000000' ? 1 : 0),
  } as unknown as CreatePath;
  // No statement runs here: the merge's reads and writes of customer rows are the HTTP tests'.
  const database = { features: { maxParameters: 999 } } as unknown as DatabaseHandle;
  return { service: createCustomerMerging({ metadata, path, database }), asked };
}

async function refusal(p: Promise<unknown>): Promise<string> {
  const err = await p.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(AppError);
  return (err as AppError).code;
}

describe('customers merging service', () => {
  it('validates overrides as an edit of the survivor and keeps the owner out of the values', async () => {
    const { service, asked } = merging();
    const values = await service.validateMergeOverrides(trx, actor(true), {
      current: survivor,
      input: { name: 'Li Lei (merged)', email: 'New@Example.com', svc_user_id: '8' },
      actingUserId: 7,
    });
    expect(values).toMatchObject({ name: 'Li Lei (merged)', email: 'New@Example.com', email_lower: 'new@example.com' });
    expect(values).not.toHaveProperty('owner_id');
    expect(values).not.toHaveProperty('allocation_user_id');
    // Uniqueness is asked with the survivor itself left out.
    expect(asked).toEqual([{ key: 'email', value: 'New@Example.com', exceptId: 'c-1' }]);
  });

  it('adds given custom fields to the survivor composed ones', async () => {
    const { service } = merging();
    const values = await service.validateMergeOverrides(trx, actor(true), { current: survivor, input: { ticket: 'T-9' }, actingUserId: 7 });
    expect(JSON.parse(values.ext as string)).toEqual({ level: 'gold', ticket: 'T-9' });
  });

  it('refuses what an edit refuses: a taken unique value, a changed read-only one, a malformed one', async () => {
    const { service } = merging(['taken@example.com']);
    const edit = (input: Record<string, unknown>) =>
      service.validateMergeOverrides(trx, actor(true), { current: survivor, input, actingUserId: 7 });
    expect(await refusal(edit({ email: 'taken@example.com' }))).toBe('email_unique');
    expect(await refusal(edit({ company: 'Other Co' }))).toBe('company_readonly');
    expect(await refusal(edit({ email: 'not an address' }))).toBe('email_invalid');
    expect(await refusal(edit({ name: '' }))).toBe('name_required');
    // The read-only value sent back unchanged is no change.
    await expect(edit({ company: 'ACME' })).resolves.toEqual({});
  });

  it('lets only Master or Admin name another owner in the overrides', async () => {
    const { service } = merging();
    const input = { svc_user_id: '8' };
    expect(await refusal(service.validateMergeOverrides(trx, actor(false), { current: survivor, input, actingUserId: 7 }))).toBe(
      'forbidden',
    );
    expect(
      await refusal(service.validateMergeOverrides(trx, actor(true), { current: survivor, input: { svc_user_id: '9' }, actingUserId: 7 })),
    ).toBe('svcUserId_invalid');
  });

  it('answers whetherMerge through the create path', async () => {
    const { service } = merging();
    expect(await service.whetherMergeIn(trx, { ...survivor, phone: '13800000000' })).toBe(1);
    expect(await service.whetherMergeIn(trx, survivor)).toBe(0);
  });
});
