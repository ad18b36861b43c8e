import type { AppContext } from './context.ts';
import { createAccountsService } from './modules/accounts/service.ts';
import { createClientsService } from './modules/clients/service.ts';

/** Every service, built once from the context; shared by the HTTP app, the CLI and workers. */
export function createServices(ctx: AppContext) {
  const clients = createClientsService(ctx);
  const accounts = createAccountsService(ctx, clients);
  return { clients, accounts };
}

export type Services = ReturnType<typeof createServices>;
