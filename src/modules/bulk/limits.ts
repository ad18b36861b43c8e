/** The limits of bulk actions (docs/customers.md "Bulk actions"). */

/** Customers one job may work through, chosen or "all matching". */
export const MAX_BULK_CUSTOMERS = 10_000;
/** Customers an enrolment in a sequence may take "all matching" the list's filters (chosen ones: MAX_BULK_CUSTOMERS). */
export const MAX_ENROLL_CUSTOMERS = 100_000;
/** Customers per batch of an enrolment: its rows and events are written in bulk. */
export const ENROLL_BATCH = 1000;
/** Jobs a project may have queued or running at once. */
export const MAX_ACTIVE_JOBS = 3;
/** Customers per batch: one transaction each (their changes, events, audit entries and the job's progress). */
export const BULK_BATCH = 200;
/** How often an idle worker looks for jobs (queued elsewhere, or left by a stopped process). */
export const BULK_POLL_MS = 5_000;
/** How long an export's file is kept after it was written. */
export const EXPORT_KEEP_MS = 24 * 3600_000;
/** Recent jobs a member's list shows. */
export const RECENT_JOBS = 20;
