import { describe, expect, it } from 'vitest';
import { isKnownAuditAction } from '../../console/src/features/settings/auditActions.ts';
import enUS from '../../console/src/locales/en-US/index.ts';
import zhCN from '../../console/src/locales/zh-CN/index.ts';
import { AUDIT_ACTIONS } from '../../src/modules/audit/service.ts';

/** The console's activity log (project settings) names every action the server's audit log records. */
describe("the console's labels of audit actions", () => {
  const label = (locale: typeof enUS, action: string): unknown => {
    const [group = '', verb = ''] = action.split('.');
    return (locale.settings.audit.actions as Record<string, Record<string, string> | undefined>)[group]?.[verb];
  };

  it('has a label in English and in Chinese for every action the server writes', () => {
    expect(AUDIT_ACTIONS.length).toBeGreaterThan(20);
    for (const action of AUDIT_ACTIONS) {
      expect(isKnownAuditAction(action), action).toBe(true);
      for (const locale of [enUS, zhCN]) {
        const text = label(locale, action);
        expect(typeof text === 'string' && text.trim() !== '' && text !== action, `${action}: ${String(text)}`).toBe(true);
      }
    }
  });

  it('shows an action it does not know as the server wrote it', () => {
    for (const action of ['customer.teleport', 'customer', 'customer.delete.twice', 'hasOwnProperty.x', '']) {
      expect(isKnownAuditAction(action), action).toBe(false);
    }
  });
});
