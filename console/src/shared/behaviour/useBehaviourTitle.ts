import { useCallback } from 'react';
import { useTranslation } from 'react-i18next';
import { type BehaviourLike, describeBehaviour } from './model.ts';

/** The one-line title of a behaviour record, in the user's language. */
export function useBehaviourTitle(): (record: BehaviourLike) => string {
  const { t } = useTranslation();
  return useCallback(
    (record: BehaviourLike) => {
      const view = describeBehaviour(record);
      const values = { ...view.titleValues };
      if ('name' in values && !values.name) values.name = t('customer.linkFallback');
      if ('site' in values && !values.site) values.site = t('customer.siteFallback');
      if ('title' in values && !values.title) values.title = t('customer.pageFallback');
      // The keys under customer.actions are the model's; an unknown one falls back to the action's name.
      return t(`customer.actions.${view.titleKey}` as 'customer.actions.other', {
        ...values,
        action: record.action,
        defaultValue: record.action,
      });
    },
    [t],
  );
}
