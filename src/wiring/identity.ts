import type { AppContext } from '../context.ts';
import type { BackgroundJobs } from '../lib/jobs.ts';
import { createAccessService } from '../modules/access/service.ts';
import { createAccountsBase, createAccountsService } from '../modules/accounts/service.ts';
import { createAuditService } from '../modules/audit/service.ts';
import { createClientsService } from '../modules/clients/service.ts';
import { createMembersReadModel, createMembersService } from '../modules/members/service.ts';
import { createMetadataService } from '../modules/metadata/service.ts';
import { type ProjectCreatedHook, createProjectsService } from '../modules/projects/service.ts';

/** Who is who: accounts and tokens, OAuth clients, memberships and roles, projects, their fields and audit log. */
export function createIdentityServices(ctx: AppContext, jobs: BackgroundJobs) {
  // Memberships as other modules read them (members joined to their projects), from the database alone.
  const memberReads = createMembersReadModel(ctx.database);
  // Tokens before clients: a revoked client's tokens go with it.
  const accountsBase = createAccountsBase(ctx, memberReads.salesCountOf);
  const clients = createClientsService(ctx, accountsBase.tokens.dropClientTokens);
  const accounts = createAccountsService(ctx, accountsBase, clients);
  const access = createAccessService(memberReads.membership);
  // So nothing grows without bound: expired access and refresh tokens, expired verification codes and
  // failed log-ins older than the throttle window, every ten minutes.
  jobs.define({
    name: 'prune-expired',
    idleMs: 10 * 60_000,
    async tick() {
      const removed = await accounts.pruneExpired();
      if (removed > 0) ctx.logger.debug({ removed }, 'pruned expired tokens and codes');
      return 'idle';
    },
  });
  const audit = createAuditService(ctx, access);
  const metadata = createMetadataService(ctx, access);
  // A new project gets the default customer attributes in the transaction that creates it.
  const projectCreated: readonly ProjectCreatedHook[] = [(trx, app) => metadata.seedDefaults(trx, app.id)];
  const members = createMembersService(ctx, { access, accounts, audit: audit.record, reads: memberReads });
  const projects = createProjectsService(ctx, {
    hooks: projectCreated,
    audit: audit.record,
    members: { addCreator: members.addCreator, projectsOf: memberReads.projectsOf },
  });
  return { clients, accounts, access, audit, metadata, members, projects, memberReads };
}

export type IdentityServices = ReturnType<typeof createIdentityServices>;
