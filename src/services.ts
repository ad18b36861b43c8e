import type { AppContext } from './context.ts';
import { createAccessService } from './modules/access/service.ts';
import { createAccountsService } from './modules/accounts/service.ts';
import { createBehaviourService } from './modules/behaviour/service.ts';
import { createClientsService } from './modules/clients/service.ts';
import { createHistoriesService } from './modules/histories/service.ts';
import { createIngestService } from './modules/ingest/service.ts';
import { createMembersService } from './modules/members/service.ts';
import { type ProjectCreatedHook, createProjectsService } from './modules/projects/service.ts';

/** Every service, built once from the context; shared by the HTTP app, the CLI and workers. */
export function createServices(ctx: AppContext) {
  const clients = createClientsService(ctx);
  const accounts = createAccountsService(ctx, clients);
  const access = createAccessService(ctx.database.db);
  const projectCreated: ProjectCreatedHook[] = [];
  const projects = createProjectsService(ctx, access, projectCreated);
  const members = createMembersService(ctx, access);
  const ingest = createIngestService(ctx, access, accounts);
  const histories = createHistoriesService(ctx, access);
  const behaviour = createBehaviourService(ctx, access);
  return { clients, accounts, access, projects, members, ingest, histories, behaviour };
}

export type Services = ReturnType<typeof createServices>;
