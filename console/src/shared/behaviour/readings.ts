import { type BehaviourLike, contentOf } from './model.ts';

const viewIdOf = (record: Pick<BehaviourLike, 'content'>): string | undefined => {
  const id = contentOf(record).linkViewLogId;
  return typeof id === 'string' && id !== '' ? id : undefined;
};

/**
 * One reading, one entry: the timeline shows a link view's opening (`link_view_log`, which carries
 * its pages and seconds) and folds into it the steps of that reading: its page turns
 * (`file_view_duration`) always, its leave (`link_leave_log`) when the opening is among the records
 * shown (else the leave stands for the reading: it carries the pages too). Other records pass as they are.
 */
export function oneEntryPerReading<R extends BehaviourLike>(records: readonly R[]): R[] {
  const opened = new Set(records.filter((r) => r.action === 'link_view_log').map(viewIdOf));
  return records.filter((r) => {
    const view = viewIdOf(r);
    if (view === undefined) return true;
    if (r.action === 'file_view_duration') return false;
    if (r.action === 'link_leave_log') return !opened.has(view);
    return true;
  });
}
