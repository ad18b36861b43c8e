import type { AppContext } from '../../context.ts';
import type { CustomerVisibilityReadModel } from '../customers/service.ts';
import { createCallLogging } from './calls.service.ts';
import type { TasksDeps } from './common.ts';
import { createDueScan } from './due.service.ts';
import { createNoteService } from './notes.service.ts';
import { createTaskService } from './tasks.service.ts';

export type { TasksDeps, TeamRecordWriter } from './common.ts';
export type { CallInput, CallLogging, LoggedCall } from './calls.service.ts';
export type { DueScan } from './due.service.ts';
export type { NoteService } from './notes.service.ts';
export type { NewTask, TaskChange, TaskListQuery, TaskService } from './tasks.service.ts';
export type { NoteResponse, TaskResponse } from './mapper.ts';
// Notes and tasks follow their customer: the merge job's moves and erasure's steps, built by the composition root.
export { type TaskErasure, type TaskMergeMoves, createTaskErasure, createTaskMergeMoves } from './erasure.service.ts';
// What the behaviour module's timeline joins (its TeamRecordReads), built by the composition root before it.
export { createTeamRecordReads } from './timeline.service.ts';

/**
 * Notes, tasks and logged calls on customers (docs/tasks.md), one service per kind of caller:
 * `notes`, `tasks` and `calls` for members' requests, and `due`, the background scan that announces
 * tasks come due (its `job`, which the composition root defines).
 */
export function createTasksServices(ctx: AppContext, deps: TasksDeps & { readModel: CustomerVisibilityReadModel }) {
  const notes = createNoteService(ctx, deps);
  return {
    notes,
    tasks: createTaskService(ctx, deps),
    calls: createCallLogging(ctx, { ...deps, notes }),
    due: createDueScan(ctx, deps),
  };
}

export type TasksServices = ReturnType<typeof createTasksServices>;
