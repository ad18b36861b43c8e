import type { Insertable, Kysely } from 'kysely';
import type { Database, NotesTable } from '../../db/index.ts';
import type { AppContext } from '../../context.ts';
import { type EventMessage, RECORD_BODY, writeEvents } from '../../events/outbox.ts';
import { failure } from '../../http/errors.ts';
import type { Page } from '../../http/paging.ts';
import { timeOrderedUuid } from '../../lib/ids.ts';
import type { Actor } from '../access/service.ts';
import type { VisibleCustomer } from '../customers/service.ts';
import { type TasksDeps, characters, maySee, visibleCustomer } from './common.ts';
import { NOTE_ACTION, type NoteResponse, type NoteRow, mentionsOf, toNote } from './mapper.ts';
import { MAX_MENTIONS, mentionedIds } from './mentions.ts';
import { notesRepository as repo } from './repository.ts';

/** A note's content, at most (code points). */
export const NOTE_MAX_CHARACTERS = 10_000;

/** A note checked and resolved before its transaction: written by `write` (alone, or with a logged call). */
export interface NotePlan {
  row: Insertable<NotesTable>;
  customer: VisibleCustomer;
}

/** A note's path: the customer it is on, and the note. */
export interface NoteRef {
  customerId: string;
  noteId: string;
}

/**
 * Notes on customers (docs/tasks.md "Notes"): any member writes them on the customers their customer
 * list shows; the author edits them; the author, the Master and Admins delete them. Each change
 * writes its Note event, and a note's `member_note` record puts it in the customer's timeline.
 */
export function createNoteService(ctx: AppContext, deps: TasksDeps) {
  const { clock } = ctx;
  const db = ctx.database.db;

  /** The text as stored, or the failure: required, at most 10,000 characters, at most 50 mentions. */
  function checkContent(content: string | undefined): string {
    if (content === undefined || content.trim() === '') throw failure('content_required');
    if (characters(content) > NOTE_MAX_CHARACTERS)
      throw failure('content_invalid', `content must be at most ${NOTE_MAX_CHARACTERS} characters`);
    if (mentionedIds(content).length > MAX_MENTIONS) throw failure('content_invalid', `a note mentions at most ${MAX_MENTIONS} members`);
    return content;
  }

  /** The ids mentioned that are active members who may see the customer; others stay plain text. */
  async function resolveMentions(appId: string, content: string, customer: VisibleCustomer): Promise<number[]> {
    const ids = mentionedIds(content);
    const ok = await Promise.all(ids.map((id) => maySee(deps, appId, id, customer)));
    return ids.filter((_, i) => ok[i]);
  }

  /** The Note event; `newMentions`: the people this change mentions for the first time (the alerts' signal). */
  function noteEvent(type: 'create' | 'update', row: NoteRow, ownerId: number, newMentions: number[]): EventMessage {
    return {
      event_type: type,
      domainType: 'Note',
      domainId: row.id,
      body: { ...toNote(row, clock), svcUserId: String(ownerId), newMentions },
    };
  }

  /** The note, its timeline record and their events, in the caller's transaction. */
  async function write(trx: Kysely<Database>, plan: NotePlan): Promise<NoteRow> {
    const { row, customer } = plan;
    await repo.insert(trx, row);
    await deps.records.insert(trx, [
      {
        id: row.id,
        app_id: row.app_id,
        customer_id: row.customer_id,
        svc_user_id: String(customer.ownerId),
        action: NOTE_ACTION,
        content: JSON.stringify({ note_id: row.id, author_id: row.author_id }),
        when_at: row.created_at,
        created_at: row.created_at,
        user_type: 1,
      },
    ]);
    const stored = { ...row, call_id: row.call_id ?? null } as NoteRow;
    await writeEvents(
      trx,
      row.app_id,
      [
        noteEvent('create', stored, customer.ownerId, mentionsOf(stored)),
        { event_type: 'create', domainType: 'BehaviourLog', domainId: row.id, body: RECORD_BODY },
      ],
      row.created_at as number,
    );
    return stored;
  }

  /** The note on this customer (visible to the actor), or note_not_found. */
  async function visibleNote(actor: Actor, ref: NoteRef): Promise<{ note: NoteRow; customer: VisibleCustomer }> {
    const customer = await visibleCustomer(deps, actor, ref.customerId);
    const note = await repo.find(db, actor.app.id, ref.noteId);
    if (note === undefined || note.customer_id !== customer.id) throw failure('note_not_found');
    return { note, customer };
  }

  /** Checks a new note and resolves its mentions (no write): what `write` stores. `callId`: the call it is logged with. */
  async function plan(actor: Actor, input: { customer: VisibleCustomer; content: string | undefined; callId?: string }): Promise<NotePlan> {
    const content = checkContent(input.content);
    const mentions = await resolveMentions(actor.app.id, content, input.customer);
    const now = clock.now();
    const row: Insertable<NotesTable> = {
      id: timeOrderedUuid(now),
      app_id: actor.app.id,
      customer_id: input.customer.id,
      author_id: actor.userId,
      content,
      mentions: JSON.stringify(mentions),
      call_id: input.callId ?? null,
      created_at: now,
      updated_at: now,
    };
    return { row, customer: input.customer };
  }

  return {
    plan,

    write,

    /** A new note on a customer the actor's list shows. */
    async create(actor: Actor, input: { customerId: string; content: string | undefined }): Promise<NoteResponse> {
      const customer = await visibleCustomer(deps, actor, input.customerId);
      const planned = await plan(actor, { customer, content: input.content });
      return toNote(await db.transaction().execute((trx) => write(trx, planned)), clock);
    },

    /** A page of the customer's notes, newest first. */
    async list(actor: Actor, input: { customerId: string; page: Page }): Promise<NoteResponse[]> {
      const customer = await visibleCustomer(deps, actor, input.customerId);
      const rows = await repo.page(db, actor.app.id, customer.id, input.page.offset, input.page.limit);
      return rows.map((r) => toNote(r, clock));
    },

    /** The author's new text (mentions resolved again; those new to the note are the event's `newMentions`). */
    async edit(actor: Actor, input: NoteRef & { content: string | undefined }): Promise<NoteResponse> {
      const { note, customer } = await visibleNote(actor, input);
      if (Number(note.author_id) !== actor.userId) throw failure('note_not_yours', 'Only the author edits a note');
      const content = checkContent(input.content);
      const mentions = await resolveMentions(actor.app.id, content, customer);
      const before = new Set(mentionsOf(note));
      const now = clock.now();
      const updated = await db.transaction().execute(async (trx) => {
        const row = await repo.update(trx, actor.app.id, note.id, { content, mentions: JSON.stringify(mentions), updated_at: now });
        if (row === undefined) throw failure('note_not_found');
        const fresh = mentions.filter((id) => !before.has(id));
        await writeEvents(trx, actor.app.id, [noteEvent('update', row, customer.ownerId, fresh)], now);
        return row;
      });
      return toNote(updated, clock);
    },

    /** Deletes a note (its author, the Master or an Admin) with its timeline record. */
    async remove(actor: Actor, input: NoteRef): Promise<boolean> {
      const { note, customer } = await visibleNote(actor, input);
      if (Number(note.author_id) !== actor.userId && !actor.isManager) {
        throw failure('note_not_yours', 'Only the author, the Master or an Admin deletes a note');
      }
      const now = clock.now();
      await db.transaction().execute(async (trx) => {
        if (!(await repo.remove(trx, actor.app.id, note.id))) throw failure('note_not_found');
        await deps.records.removeTeamRecords(trx, actor.app.id, [note.id]);
        const body = { id: note.id, appId: note.app_id, customerId: note.customer_id, svcUserId: String(customer.ownerId) };
        await writeEvents(trx, actor.app.id, [{ event_type: 'delete', domainType: 'Note', domainId: note.id, body }], now);
      });
      return true;
    },
  };
}

export type NoteService = ReturnType<typeof createNoteService>;
