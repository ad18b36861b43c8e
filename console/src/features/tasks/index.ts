/**
 * The notes and tasks area's public entry: what a customer's page shows of it (its tasks, notes and
 * "log a call"; the timeline's note and task entries). Its Tasks page is a route of its own.
 */
export { CustomerWork } from './components/CustomerWork.tsx';
export { TeamRecord } from './components/TeamRecord.tsx';
/** The caller's tasks due today and overdue, for the project's home page. */
export { TodayTasks } from './components/TodayTasks.tsx';
/** The signed-in member, their role, and the project's people by name. */
export { usePeople } from './usePeople.ts';
