import type { Kysely } from 'kysely';
import type { AppContext } from '../../context.ts';
import type { Database } from '../../db/index.ts';
import { failure, fieldFailure } from '../../http/errors.ts';
import type { Page } from '../../http/paging.ts';
import { timeOrderedUuid } from '../../lib/ids.ts';
import type { Actor } from '../access/service.ts';
import type { SequenceMail } from '../campaigns/service.ts';
import type { LinkReads } from '../links/service.ts';
import type { EnrollmentsRepository } from './enrollments.repository.ts';
import type { Lifecycle } from './lifecycle.ts';
import { type SequenceResponse, type SequenceRow, type VersionResponse, type VersionRow, toSequence, toVersion } from './mapper.ts';
import { sequencesRepository as repo } from './repository.ts';
import { type Definition, type DefinitionInput, checkDefinition } from './steps.ts';

/** Enrolments a sequence's archiving exits per statement. */
const EXIT_CHUNK = 1000;

export interface DefinitionsDeps {
  /** The deck a sequence is about must be a link of the project. */
  links: Pick<LinkReads, 'alertLinks'>;
  /** An e-mail step's HTML is checked as the campaigns will render it (merge fields, links). */
  templates: Pick<SequenceMail, 'templateProblem'>;
}

const notFound = () => failure('sequence_not_found');

/**
 * Sequences as members define them (docs/sequences.md "Sequences"): any member makes one; its
 * creator, the Master and Admins change or archive it. Each change is a new immutable version: an
 * enrolled customer keeps running the version they were enrolled in. Archiving exits its active and
 * paused enrolments (`sequence_deleted`).
 */
export function createSequenceDefinitions(
  ctx: AppContext,
  deps: DefinitionsDeps & { enrollments: EnrollmentsRepository; lifecycle: Lifecycle },
) {
  const db: Kysely<Database> = ctx.database.db;
  const { clock } = ctx;

  async function checked(actor: Actor, input: DefinitionInput): Promise<Definition> {
    const def = checkDefinition(input);
    def.steps.forEach((step, i) => {
      const problem = step.html === null ? null : deps.templates.templateProblem(step.html);
      if (problem !== null) throw fieldFailure('steps', 'invalid', `steps[${i}].html: ${problem}`);
    });
    if (def.deckLinkId !== null && !(await deps.links.alertLinks(actor.app.id, [def.deckLinkId])).has(def.deckLinkId))
      throw fieldFailure('deck_link_id', 'invalid', 'deckLinkId must be a link of the project');
    return def;
  }

  function versionRow(actor: Actor, at: { sequenceId: string; version: number; now: number }, def: Definition): VersionRow {
    return {
      app_id: actor.app.id,
      sequence_id: at.sequenceId,
      version: at.version,
      steps: JSON.stringify(def.steps),
      deck_link_id: def.deckLinkId,
      jump: def.jump === null ? null : JSON.stringify(def.jump),
      created_by: actor.userId,
      created_at: at.now,
    };
  }

  /** A live sequence of the project; sequence_not_found otherwise. */
  async function found(actor: Actor, id: string, executor: Kysely<Database> = db): Promise<SequenceRow> {
    const s = id.length > 64 ? undefined : await repo.find(executor, actor.app.id, id);
    if (s === undefined) throw notFound();
    return s;
  }

  /** A sequence the actor may change: its creator's, or any for the Master and Admins. */
  async function changeable(actor: Actor, id: string): Promise<SequenceRow> {
    const s = await found(actor, id);
    if (!actor.isManager && Number(s.created_by) !== actor.userId) throw notFound();
    return s;
  }

  async function answer(actor: Actor, s: SequenceRow): Promise<SequenceResponse> {
    const v = await repo.version(db, actor.app.id, s.id, Number(s.version));
    if (v === undefined) throw notFound();
    const counts = (await deps.enrollments.counts(db, actor.app.id, [s.id])).get(s.id);
    return toSequence(s, v, clock, counts);
  }

  return {
    found,

    async create(actor: Actor, input: DefinitionInput): Promise<SequenceResponse> {
      const def = await checked(actor, input);
      const now = clock.now();
      const row: SequenceRow = {
        id: timeOrderedUuid(now),
        app_id: actor.app.id,
        name: def.name,
        version: 1,
        created_by: actor.userId,
        created_at: now,
        updated_at: now,
        deleted_at: null,
      };
      const v = versionRow(actor, { sequenceId: row.id, version: 1, now }, def);
      await db.transaction().execute((trx) => repo.insertSequence(trx, row, v));
      return toSequence(row, v, clock);
    },

    /** The project's live sequences, newest first, with their enrolments counted by state. */
    async list(actor: Actor, page: Page): Promise<SequenceResponse[]> {
      const rows = await repo.page(db, actor.app.id, page.offset, page.limit);
      const versions = await repo.currentVersions(db, actor.app.id, rows);
      const counts = await deps.enrollments.counts(
        db,
        actor.app.id,
        rows.map((r) => r.id),
      );
      return rows.flatMap((s) => {
        const v = versions.get(s.id);
        return v === undefined ? [] : [toSequence(s, v, clock, counts.get(s.id))];
      });
    },

    async get(actor: Actor, id: string): Promise<SequenceResponse> {
      return answer(actor, await found(actor, id));
    },

    async version(actor: Actor, id: string, version: number): Promise<VersionResponse> {
      const s = await found(actor, id);
      const v = await repo.version(db, actor.app.id, s.id, version);
      if (v === undefined) throw failure('sequence_version_not_found');
      return toVersion(v, clock);
    },

    /** A new version: what enrolled customers run is unchanged; new enrolments take this one. */
    async edit(actor: Actor, id: string, input: DefinitionInput): Promise<SequenceResponse> {
      const s = await changeable(actor, id);
      const def = await checked(actor, input);
      const now = clock.now();
      const from = Number(s.version);
      await db.transaction().execute(async (trx) => {
        // Guarded by the version read: of two edits at once, the second is told to read it again.
        if (!(await repo.bump(trx, actor.app.id, s.id, { from, name: def.name, now })))
          throw failure('sequence_not_found', 'The sequence was changed or archived meanwhile: read it again');
        await repo.insertVersion(trx, versionRow(actor, { sequenceId: s.id, version: from + 1, now }, def));
      });
      return answer(actor, await found(actor, id));
    },

    /** Archives the sequence and exits its active and paused enrolments (`sequence_deleted`), in one transaction. */
    async remove(actor: Actor, id: string): Promise<{ exited: number }> {
      const s = await changeable(actor, id);
      const now = clock.now();
      return db.transaction().execute(async (trx) => {
        if (!(await repo.archive(trx, actor.app.id, s.id, now))) throw notFound();
        let exited = 0;
        for (;;) {
          const ids = await deps.enrollments.openOfSequence(trx, actor.app.id, s.id, EXIT_CHUNK);
          if (ids.length === 0) return { exited };
          exited += (await deps.lifecycle.exitIds(trx, actor.app.id, ids, { reason: 'sequence_deleted', now })).length;
        }
      });
    },
  };
}

export type SequenceDefinitions = ReturnType<typeof createSequenceDefinitions>;
