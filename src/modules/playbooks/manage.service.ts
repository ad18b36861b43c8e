import { randomBytes } from 'node:crypto';
import type { AppContext } from '../../context.ts';
import { checkWebhookUrl } from '../../events/ssrf.ts';
import { failure, forbidden } from '../../http/errors.ts';
import type { Page } from '../../http/paging.ts';
import { timeOrderedUuid } from '../../lib/ids.ts';
import type { Actor } from '../access/service.ts';
import type { PlaybooksDeps } from './common.ts';
import { type Definition, definitionOf } from './definition.ts';
import { type PlaybookResponse, type RunResponse, definitionOfRow, toPlaybook, toRun } from './mapper.ts';
import { type PlaybookRow, playbooksRepository as repo } from './repository.ts';

/** Playbooks a project may have. */
export const MAX_PLAYBOOKS = 100;

const invalid = (detail: string) => failure('playbook_invalid', detail);
/** What a change names (the audit entry's `changed`). */
const EDITABLE = new Set(['name', 'enabled', 'trigger', 'filters', 'actions', 'limit']);

/** An audit entry's account of a definition: what it reacts to and does, no webhook address or field value. */
const summary = (d: Definition) => ({
  name: d.name,
  enabled: d.enabled,
  trigger: d.trigger.kind,
  actions: d.actions.map((a) => a.type),
  limit: d.limit.kind,
});

/**
 * Playbooks as the project's managers make them (docs/playbooks.md "The API"): the Master and Admins
 * make, change, list, archive and dry-run them and read their runs (a playbook acts on every customer
 * of the project); what a definition names (a link, a file, a group, a sequence, a member, a webhook's
 * address) is checked to be the project's, or reachable, when it is saved.
 */
export function createPlaybookManagement(ctx: AppContext, deps: PlaybooksDeps) {
  const db = ctx.database.db;
  const { clock, config } = ctx;

  function manager(actor: Actor): void {
    if (!actor.isManager) throw forbidden("Only the project's Master and Admins manage playbooks");
  }

  async function member(appId: string, userId: number, what: string): Promise<void> {
    const m = await deps.access.memberRecord(appId, userId).catch(() => null);
    if (m === null || m.status !== 0) throw invalid(`${what}: ${userId} is not an active member of the project`);
  }

  /** What the definition names, checked against the project. */
  async function checkRefs(actor: Actor, d: Definition): Promise<void> {
    const appId = actor.app.id;
    const c = d.trigger.conditions;
    if (c.linkId !== undefined && !(await deps.links.alertLinks(appId, [c.linkId])).has(c.linkId))
      throw invalid('trigger.conditions.linkId: no such link in the project');
    if (c.fileId !== undefined && !(await deps.files.of(db, appId, [c.fileId])).has(c.fileId))
      throw invalid('trigger.conditions.fileId: no such file in the project');
    for (const u of d.filters.ownerIds ?? []) await member(appId, u, 'filters.ownerIds');
    for (const g of d.filters.groupIds ?? [])
      if ((await deps.groups.ownerOf(db, appId, g)) === undefined) throw invalid(`filters.groupIds: no group ${g}`);
    for (const [i, a] of d.actions.entries()) {
      if (a.type === 'notify' && a.to !== 'owner') for (const u of a.to) await member(appId, u, `actions[${i}].to`);
      if (a.type === 'move_to_group' && (await deps.groups.ownerOf(db, appId, a.groupId)) === undefined)
        throw invalid(`actions[${i}].groupId: no such group in the project`);
      if ((a.type === 'enroll' || a.type === 'exit_sequence') && a.sequenceId !== null)
        await deps.sequences.check(actor, a.sequenceId).catch(() => {
          throw invalid(`actions[${i}].sequenceId: no such sequence in the project`);
        });
      if (a.type === 'webhook') {
        const problem = await checkWebhookUrl(a.url, config.webhookAllowPrivate);
        if (problem) throw failure('url_invalid', `actions[${i}].url: ${problem}`);
      }
    }
  }

  async function found(actor: Actor, id: string): Promise<PlaybookRow> {
    const row = await repo.find(db, actor.app.id, id);
    if (row === undefined) throw failure('playbook_not_found');
    return row;
  }

  const audited = (actor: Actor, id: string, action: 'playbook.create' | 'playbook.edit' | 'playbook.remove') =>
    ({ appId: actor.app.id, actorId: actor.userId, action, targetType: 'playbook', targetId: id }) as const;

  const columns = (d: Definition) => ({
    name: d.name,
    enabled: d.enabled ? 1 : 0,
    trigger_def: JSON.stringify(d.trigger),
    filters: JSON.stringify(d.filters),
    actions: JSON.stringify(d.actions),
    limit_kind: d.limit.kind,
    limit_days: d.limit.days,
  });

  return {
    /** A new playbook; its answer carries the secret its webhook calls are signed with (shown this once). */
    async create(actor: Actor, body: Record<string, unknown>): Promise<PlaybookResponse> {
      manager(actor);
      const d = definitionOf(body, deps.isCatalogueAction);
      await checkRefs(actor, d);
      if ((await repo.count(db, actor.app.id)) >= MAX_PLAYBOOKS) throw failure('too_many_playbooks');
      const now = clock.now();
      const row: PlaybookRow = {
        id: timeOrderedUuid(now),
        app_id: actor.app.id,
        ...columns(d),
        secret: randomBytes(24).toString('base64url'),
        created_by: actor.userId,
        created_at: now,
        updated_at: now,
        deleted_at: null,
      };
      await db.transaction().execute(async (trx) => {
        await repo.insert(trx, row);
        await deps.audit(trx, { ...audited(actor, row.id, 'playbook.create'), detail: summary(d) });
      });
      return toPlaybook(row, clock, true);
    },

    async list(actor: Actor): Promise<PlaybookResponse[]> {
      manager(actor);
      return (await repo.list(db, actor.app.id)).map((r) => toPlaybook(r, clock));
    },

    async get(actor: Actor, id: string): Promise<PlaybookResponse> {
      manager(actor);
      return toPlaybook(await found(actor, id), clock);
    },

    /** A change: what the body gives replaces the current (a trigger whole, the actions whole). */
    async edit(actor: Actor, id: string, body: Record<string, unknown>): Promise<PlaybookResponse> {
      manager(actor);
      const current = await found(actor, id);
      const d = definitionOf(body, deps.isCatalogueAction, definitionOfRow(current));
      await checkRefs(actor, d);
      const row = await db.transaction().execute(async (trx) => {
        const updated = await repo.update(trx, actor.app.id, id, { ...columns(d), updated_at: clock.now() });
        if (updated === undefined) throw failure('playbook_not_found');
        await deps.audit(trx, {
          ...audited(actor, id, 'playbook.edit'),
          detail: { changed: Object.keys(body).filter((k) => EDITABLE.has(k)), ...summary(d) },
        });
        return updated;
      });
      return toPlaybook(row, clock);
    },

    /** Archives it: it acts no more; its runs stay readable by its id. */
    async remove(actor: Actor, id: string): Promise<void> {
      manager(actor);
      const now = clock.now();
      await db.transaction().execute(async (trx) => {
        const row = await repo.update(trx, actor.app.id, id, { deleted_at: now, enabled: 0, updated_at: now });
        if (row === undefined) throw failure('playbook_not_found');
        await deps.audit(trx, { ...audited(actor, id, 'playbook.remove'), detail: { name: row.name } });
      });
    },

    /** Its runs, newest first, a page of them. */
    async runs(actor: Actor, id: string, page: Page): Promise<RunResponse[]> {
      manager(actor);
      await found(actor, id);
      return (await repo.runs(db, actor.app.id, id, page)).map((r) => toRun(r, clock));
    },

    /** The definition a dry run evaluates: a draft (checked as a create is), or a saved playbook's. */
    async dryRunDefinition(actor: Actor, body: Record<string, unknown>): Promise<{ definition: Definition; playbookId: string | null }> {
      manager(actor);
      if (typeof body.playbookId === 'string') {
        const row = await found(actor, body.playbookId);
        return { definition: definitionOfRow(row), playbookId: row.id };
      }
      const d = definitionOf(body, deps.isCatalogueAction);
      await checkRefs(actor, d);
      return { definition: d, playbookId: null };
    },
  };
}

export type PlaybookManagement = ReturnType<typeof createPlaybookManagement>;
