import { describe, expect, it } from 'vitest';
import type { AppContext } from '../../../src/context.ts';
import { AppError } from '../../../src/http/errors.ts';
import type { Actor } from '../../../src/modules/access/service.ts';
import type { ViewerFile } from '../../../src/modules/files/service.ts';
import { createLinkManagement } from '../../../src/modules/links/manage.service.ts';
import type { LinkRow } from '../../../src/modules/links/mapper.ts';
import { FakeClock } from '../../helpers/fake-clock.ts';

const APP = 'app-1';
const master = { app: { id: APP }, userId: 1, role: 'Master', isManager: true } as Actor;
const sales = { app: { id: APP }, userId: 2, role: 'Sales', isManager: false } as Actor;
const otherSales = { app: { id: APP }, userId: 3, role: 'Sales', isManager: false } as Actor;
const ready: ViewerFile = {
  id: 'file-1',
  name: 'deck.pdf',
  mimeType: 'application/pdf',
  status: 'ready',
  pageCount: 2,
  version: 'v1',
  versionNumber: 1,
  pages: [],
};

/** The management service over links kept in memory; the Link record answered is the stored row. */
function setUp() {
  const clock = new FakeClock();
  const links = new Map<string, LinkRow>();
  const cleared: string[] = [];
  const ctx = { clock, config: { insecureFastHash: true }, database: { db: {} } } as unknown as AppContext;
  const management = createLinkManagement(ctx, {
    accounts: { userById: async (id) => ({ id, name: `user ${id}` }) as never },
    files: { viewerFile: async (_appId, id) => (id === ready.id ? ready : null) },
    customers: {
      viewerCustomers: async (_appId, ids) =>
        new Map(ids.filter((id) => id === 'customer-2').map((id) => [id, { id, name: null, ownerId: 2 }])),
    },
    histories: { linkRecord: async (_actor, id) => links.get(id) as never },
    rooms: { usable: async () => false },
    repository: {
      insert: async (_db, row) => {
        links.set(row.id, { status: 1, ...row } as LinkRow);
      },
      find: async (_db, appId, id) => (links.get(id)?.app_id === appId ? links.get(id) : undefined),
      update: async (_db, _appId, id, patch) => {
        const link = links.get(id);
        if (link !== undefined) links.set(id, { ...link, ...patch } as LinkRow);
        return link !== undefined;
      },
      clearPasscodeFailures: async (_db, _appId, id) => {
        cleared.push(id);
      },
    },
  });
  return { clock, links, cleared, management };
}

const codeOf = (p: Promise<unknown>) =>
  p.then(
    () => 'answered',
    (e: unknown) => (e instanceof AppError ? e.code : e),
  );

describe('link management', () => {
  it("makes the actor's link with a share token, at the clock's time", async () => {
    const t = setUp();
    const made = (await t.management.create(sales, {
      input: { name: ' Deck ', file_id: 'file-1', tags: 'a, b, a' },
      withUrl: false,
    })) as unknown as LinkRow;
    expect(made).toMatchObject({
      app_id: APP,
      creator_id: 2,
      creator_name: 'user 2',
      name: 'Deck',
      type: 1,
      file1: 'file-1',
      tags: '["a","b"]',
    });
    expect(made.share_token).toMatch(/^[A-Za-z0-9_-]{22}$/);
    expect(made.created_at).toBe(t.clock.now());
  });

  it('refuses what the input gets wrong, in the order the fields are checked', async () => {
    const t = setUp();
    expect(await codeOf(t.management.create(sales, { input: { file_id: 'file-1' }, withUrl: false }))).toBe('name_required');
    expect(await codeOf(t.management.create(sales, { input: { name: 'x', file_id: 'nope' }, withUrl: false }))).toBe('file_not_found');
    expect(await codeOf(t.management.create(sales, { input: { name: 'x', type: 2, website: 'ftp://x' }, withUrl: false }))).toBe(
      'website_invalid',
    );
    const past = t.clock.format(t.clock.now() - 1000);
    expect(await codeOf(t.management.create(sales, { input: { name: 'x', file_id: 'file-1', expires_at: past }, withUrl: false }))).toBe(
      'expires_at_invalid',
    );
    expect(t.links.size).toBe(0);
  });

  it("directs a Sales member's link at their own customers only", async () => {
    const t = setUp();
    const input = { name: 'x', file_id: 'file-1', customer_id: 'customer-2' };
    expect(await codeOf(t.management.create(otherSales, { input, withUrl: false }))).toBe('customer_not_found');
    expect(await t.management.create(sales, { input, withUrl: false })).toMatchObject({ customer_id: 'customer-2', is_directional: 1 });
    expect(await t.management.create(master, { input, withUrl: false })).toMatchObject({ customer_id: 'customer-2', is_directional: 1 });
  });

  it("lets Master edit any link, Sales only their own (another's is link_not_found); a new passcode ends a lockout", async () => {
    const t = setUp();
    const made = (await t.management.create(sales, { input: { name: 'Deck', file_id: 'file-1' }, withUrl: false })) as unknown as LinkRow;
    expect(await codeOf(t.management.update(otherSales, { linkId: made.id, input: { name: 'Mine' }, withUrl: false }))).toBe(
      'link_not_found',
    );
    await t.clock.advance(5000);
    expect(await t.management.update(master, { linkId: made.id, input: { remark: 'checked' }, withUrl: false })).toMatchObject({
      name: 'Deck',
      remark: 'checked',
      updated_at: t.clock.now(),
    });
    expect(t.cleared).toEqual([]);
    const locked = (await t.management.update(sales, {
      linkId: made.id,
      input: { passcode: 'open sesame' },
      withUrl: false,
    })) as unknown as LinkRow;
    expect(locked.passcode_hash).not.toBeNull();
    expect(t.cleared).toEqual([made.id]);
  });

  it('disables a link once, at the clock’s time', async () => {
    const t = setUp();
    const made = (await t.management.create(sales, { input: { name: 'Deck', file_id: 'file-1' }, withUrl: false })) as unknown as LinkRow;
    expect(await codeOf(t.management.disable(otherSales, { linkId: made.id }))).toBe('link_not_found');
    await t.clock.advance(1000);
    const at = t.clock.now();
    expect(await t.management.disable(sales, { linkId: made.id })).toBe(true);
    await t.clock.advance(1000);
    expect(await t.management.disable(master, { linkId: made.id })).toBe(true);
    expect(t.links.get(made.id)).toMatchObject({ status: 0, disabled_at: at });
  });
});
