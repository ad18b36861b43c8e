import type { TFunction } from 'i18next';
import type { ImportJobView } from './model.ts';

type Counts = Pick<ImportJobView, 'created' | 'updated' | 'skipped' | 'failed'>;

/**
 * How an import's rows ended, each count with its noun in the user's language ("2 customers created",
 * "1 row failed"): the placeholders of `customers.import.done` and `customers.import.finishedBanner`.
 */
export function outcomeParts(t: TFunction, job: Counts): Record<keyof Counts, string> {
  return {
    created: t('customers.import.outcome.created', { count: job.created }),
    updated: t('customers.import.outcome.updated', { count: job.updated }),
    skipped: t('customers.import.outcome.skipped', { count: job.skipped }),
    failed: t('customers.import.outcome.failed', { count: job.failed }),
  };
}
