import type { Static } from '@sinclair/typebox';
import type { Transaction } from 'kysely';
import type { Database } from '../../db/index.ts';
import type { AppContext } from '../../context.ts';
import { failure } from '../../http/errors.ts';
import { timeOrderedUuid } from '../../lib/ids.ts';
import type { Actor } from '../access/service.ts';
import { type TasksDeps, visibleCustomer } from './common.ts';
import { type NoteResponse, type NoteRow, toNote } from './mapper.ts';
import type { NotePlan, NoteService } from './notes.service.ts';
import type { CallBody } from './schemas.ts';

export type CallInput = Static<typeof CallBody>;

/** A call may be logged this far ahead of the server's clock (a phone's clock running fast). */
const FUTURE_SLACK_MS = 5 * 60_000;

/** What a logged call wrote. */
export interface LoggedCall {
  id: string;
  recordId: string;
  callTime: string;
  endTime: string;
  duration: number;
  callStatus: number;
  note: NoteResponse | null;
}

/**
 * "Log a call" (docs/tasks.md "Logging a call"): a member records a call they had with a customer
 * their list shows, as the interface's Call record and its `call` behaviour record, through
 * ingestion's write path (so the call is in /calls, the overview's callCount and the timeline like a
 * producer's), and optionally a note written with it, all in one transaction.
 */
export function createCallLogging(ctx: AppContext, deps: TasksDeps & { notes: NoteService }) {
  const { clock } = ctx;

  function callTime(input: string | undefined, now: number): number {
    if (input === undefined || input.trim() === '') return now;
    const at = clock.parse(input.trim());
    if (at === null || at > now + FUTURE_SLACK_MS || at < Date.UTC(2000, 0, 1)) throw failure('call_time_invalid');
    return at;
  }

  return {
    async log(actor: Actor, input: { customerId: string; call: CallInput }): Promise<LoggedCall> {
      const customer = await visibleCustomer(deps, actor, input.customerId);
      const { call } = input;
      const now = clock.now();
      const start = callTime(call.call_time, now);
      const duration = call.duration ?? 0;
      const status = call.call_status ?? 1;
      const direction = (call.direction ?? 'out').trim().toLowerCase() || 'out';
      if (direction !== 'out' && direction !== 'in') throw failure('direction_invalid');
      const callId = timeOrderedUuid(now);
      const recordId = timeOrderedUuid(now);
      const hasNote = call.note !== undefined && call.note.trim() !== '';
      const note: NotePlan | null = hasNote ? await deps.notes.plan(actor, { customer, content: call.note, callId }) : null;
      const member = { type: 2, id: String(actor.userId) };
      const party = { type: 1, id: customer.id };
      const [from, to] = direction === 'out' ? [member, party] : [party, member];
      const iso = (ms: number) => new Date(ms).toISOString();
      const items = [
        {
          event_type: 'create',
          domainType: 'Call',
          domainId: callId,
          body: {
            fromUserType: from.type,
            fromUserId: from.id,
            toUserType: to.type,
            toUserId: to.id,
            callStatus: status,
            callTime: iso(start),
            endTime: iso(start + duration * 1000),
            duration,
            // Nothing to process: a logged call has no recording.
            audioStatus: 1,
          },
        },
        {
          event_type: 'create',
          domainType: 'BehaviourLog',
          domainId: recordId,
          body: {
            customerId: customer.id,
            action: 'call',
            userType: 1,
            when: iso(start),
            content: JSON.stringify({ record_id: callId, duration }),
          },
        },
      ];
      const caller = { appId: actor.app.id, defaultOwner: actor.userId, by: 'token' as const };
      let written: NoteRow | null = null;
      const withNote = note === null ? undefined : async (trx: Transaction<Database>) => void (written = await deps.notes.write(trx, note));
      await deps.ingest.ingest(caller, items, withNote);
      return {
        id: callId,
        recordId,
        callTime: clock.format(start),
        endTime: clock.format(start + duration * 1000),
        duration,
        callStatus: status,
        note: written === null ? null : toNote(written, clock),
      };
    },
  };
}

export type CallLogging = ReturnType<typeof createCallLogging>;
