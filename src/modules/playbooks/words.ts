import type { Trigger } from './definition.ts';

/**
 * What a trigger says in words, in English and Chinese (a notice's sentence, a dry run's line):
 * "read at least 60% of a deck 2 times within 3 days".
 */

const EN: Record<string, string> = {
  deck_read: 'read a deck',
  link_open: 'opened a link',
  site_visit: 'visited the site',
  form_submitted: 'submitted a form',
  mail_opened: 'opened a mail',
  mail_clicked: 'clicked in a mail',
  score_above: 'reached a score',
};
const ZH: Record<string, string> = {
  deck_read: '阅读了资料',
  link_open: '打开了链接',
  site_visit: '访问了网站',
  form_submitted: '提交了表单',
  mail_opened: '打开了邮件',
  mail_clicked: '点击了邮件中的链接',
  score_above: '分数达到',
};

export function describeTrigger(t: Trigger): { en: string; zh: string } {
  const c = t.conditions;
  let en = EN[t.kind] ?? `did '${t.kind}'`;
  let zh = ZH[t.kind] ?? `有了「${t.kind}」行为`;
  if (t.kind === 'deck_read' && c.readShare !== undefined) {
    en = `read at least ${c.readShare}% of a deck`;
    zh = `阅读了资料的至少 ${c.readShare}%`;
  }
  if (c.page !== undefined) {
    en += ` (page ${c.page})`;
    zh += `（第 ${c.page} 页）`;
  }
  if (c.score !== undefined) {
    en = `reached a score of ${c.score}`;
    zh = `分数达到 ${c.score}`;
  }
  if (c.repeats !== undefined && c.repeats.count > 1) {
    en += ` ${c.repeats.count} times within ${c.repeats.withinDays} days`;
    zh += ` ${c.repeats.count} 次（${c.repeats.withinDays} 天内）`;
  }
  return { en, zh };
}
