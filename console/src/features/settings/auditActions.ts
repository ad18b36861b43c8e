// The reference language's settings texts alone: the rest of it loads with the language (src/shared/i18n/i18n.ts).
import settings from '../../locales/en-US/settings.json' with { type: 'json' };

type Labels = typeof settings.audit.actions;
/** An audit action the console has words for: `group.verb`, as the locale files name them. */
export type KnownAuditAction = { [G in keyof Labels]: `${G}.${keyof Labels[G] & string}` }[keyof Labels];

/**
 * Whether the console has a label for an audit action (`settings.audit.actions.<group>.<verb>`); one it
 * does not know (from a newer server) is shown as the server wrote it.
 */
export function isKnownAuditAction(action: string): action is KnownAuditAction {
  const [group = '', verb = '', ...rest] = action.split('.');
  const labels: Record<string, Record<string, string>> = settings.audit.actions;
  return rest.length === 0 && Object.hasOwn(labels, group) && Object.hasOwn(labels[group] ?? {}, verb);
}
