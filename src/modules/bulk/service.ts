import type { AppContext } from '../../context.ts';
import type { DefineJob } from '../../lib/jobs.ts';
import type { AccessService } from '../access/service.ts';
import type { CampaignAdditions } from '../campaigns/service.ts';
import type { CustomerBulk, CustomerDataOps } from '../customers/service.ts';
import type { CustomerExport } from '../dataops/service.ts';
import type { SequenceAutomation } from '../sequences/service.ts';
import { createBulkJobs } from './jobs.service.ts';
import { createBulkRunner } from './runner.service.ts';

export type { AllMatching, BulkJobs, BulkRequest } from './jobs.service.ts';
export type { BulkJobResponse } from './mapper.ts';

/**
 * Bulk actions on customers (docs/customers.md "Bulk actions", ADR 0033), one service per caller:
 * `jobs` (members start and follow them, and take an export's file) and the background job
 * `customer-bulk` that runs them (the runner, defined here). Customers change through the customers
 * service's bulk steps, campaigns gain recipients through the campaigns service, exports are
 * written by the dataops service.
 */
export function createBulkServices(
  ctx: AppContext,
  deps: {
    access: Pick<AccessService, 'membership'>;
    customers: { bulk: CustomerBulk; dataOps: Pick<CustomerDataOps, 'exportScope'> };
    campaigns: CampaignAdditions;
    /** The action enroll: the sequences' narrow functions. */
    sequences: Pick<SequenceAutomation, 'check' | 'enrollInTransaction'>;
    exports: Pick<CustomerExport, 'exportSelected'>;
    defineJob: DefineJob;
  },
) {
  const runner = createBulkRunner(ctx, { ...deps, customers: deps.customers.bulk });
  const job = deps.defineJob(runner.job);
  const jobs = createBulkJobs(ctx, {
    customers: deps.customers,
    campaigns: deps.campaigns,
    sequences: deps.sequences,
    started: () => job.poke(),
  });
  return { jobs };
}

export type BulkServices = ReturnType<typeof createBulkServices>;
