import type { AppContext } from '../../context.ts';
import type { CustomerVisibilityReadModel } from '../customers/service.ts';
import { type NoteResponse, type TaskResponse, toNote, toTask } from './mapper.ts';
import { notesRepository } from './repository.ts';
import { createTasksRepository } from './tasks.repository.ts';

/**
 * The notes and tasks the timeline's team records name (the behaviour module's list joins them, its
 * `TeamRecordReads`): the project's notes and tasks of these ids as the API answers them, missing ones
 * left out. The caller has checked the customer; a record names its own customer's note or task.
 */
export function createTeamRecordReads(ctx: AppContext, readModel: CustomerVisibilityReadModel) {
  const db = ctx.database.db;
  const tasks = createTasksRepository(readModel);
  return async (
    appId: string,
    ids: { noteIds: string[]; taskIds: string[] },
  ): Promise<{ notes: Map<string, NoteResponse>; tasks: Map<string, TaskResponse> }> => {
    const now = ctx.clock.now();
    const [noteRows, taskRows] = await Promise.all([notesRepository.byIds(db, appId, ids.noteIds), tasks.byIds(db, appId, ids.taskIds)]);
    return {
      notes: new Map(noteRows.map((r) => [r.id, toNote(r, ctx.clock)])),
      tasks: new Map(taskRows.map((r) => [r.id, toTask(r, ctx.clock, now)])),
    };
  };
}
