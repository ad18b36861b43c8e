import type home from './en-US/home.json';
import type linkAnalytics from './en-US/linkAnalytics.json';
import type linkGates from './en-US/linkGates.json';
import type playbooks from './en-US/playbooks.json';
import type rooms from './en-US/rooms.json';
import type notifications from './en-US/notifications.json';
import type scoring from './en-US/scoring.json';
import type sequences from './en-US/sequences.json';
import type tasks from './en-US/tasks.json';

/**
 * Texts that load with the pages that use them, not with the console's first page (its first-load
 * budget): a namespace per feature, a file per language beside the others. en-US types their keys
 * with the rest (src/shared/i18n/i18n.ts); `useLazyTexts` (src/shared/i18n/lazyTexts.ts) loads them.
 */
export interface LazyTexts {
  tasks: typeof tasks;
  home: typeof home;
  notifications: typeof notifications;
  scoring: typeof scoring;
  sequences: typeof sequences;
  playbooks: typeof playbooks;
  linkAnalytics: typeof linkAnalytics;
  linkGates: typeof linkGates;
  rooms: typeof rooms;
}

export type LazyNamespace = keyof LazyTexts;

/** The console's languages (src/shared/i18n/language.ts; not imported: the browser tests read this file, outside the browser). */
type Language = 'en-US' | 'zh-CN';

export const LAZY_TEXTS: { [N in LazyNamespace]: Record<Language, () => Promise<{ default: LazyTexts[N] }>> } = {
  tasks: { 'en-US': () => import('./en-US/tasks.json'), 'zh-CN': () => import('./zh-CN/tasks.json') },
  home: { 'en-US': () => import('./en-US/home.json'), 'zh-CN': () => import('./zh-CN/home.json') },
  notifications: { 'en-US': () => import('./en-US/notifications.json'), 'zh-CN': () => import('./zh-CN/notifications.json') },
  scoring: { 'en-US': () => import('./en-US/scoring.json'), 'zh-CN': () => import('./zh-CN/scoring.json') },
  sequences: { 'en-US': () => import('./en-US/sequences.json'), 'zh-CN': () => import('./zh-CN/sequences.json') },
  playbooks: { 'en-US': () => import('./en-US/playbooks.json'), 'zh-CN': () => import('./zh-CN/playbooks.json') },
  linkAnalytics: { 'en-US': () => import('./en-US/linkAnalytics.json'), 'zh-CN': () => import('./zh-CN/linkAnalytics.json') },
  linkGates: { 'en-US': () => import('./en-US/linkGates.json'), 'zh-CN': () => import('./zh-CN/linkGates.json') },
  rooms: { 'en-US': () => import('./en-US/rooms.json'), 'zh-CN': () => import('./zh-CN/rooms.json') },
};

/** Every lazy namespace of a language at once (the locale tests, the browser tests' texts). */
export async function allLazyTexts(language: Language): Promise<LazyTexts> {
  const entries = await Promise.all(Object.entries(LAZY_TEXTS).map(async ([ns, load]) => [ns, (await load[language]()).default] as const));
  return Object.fromEntries(entries) as unknown as LazyTexts;
}
