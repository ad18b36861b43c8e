import type { AppContext } from '../../context.ts';
import type { ClientsService } from '../clients/service.ts';
import { createAccountsAdmin } from './admin.service.ts';
import { createCodesService } from './codes.service.ts';
import { consoleClientOf } from './identity.ts';
import { type SalesCounter, createProfileService } from './profile.service.ts';
import type { UserRow } from './repository.ts';
import { createSignInService } from './sign-in.service.ts';
import { createTokensService } from './tokens.service.ts';

export type { UserRow };
export type { RegisterInput, UpdateUserInput } from './identity.ts';
export type { ClientCredentials } from './sign-in.service.ts';
export { ACCESS_TOKEN_TTL, type AuthUser, type TokenResponse } from './tokens.service.ts';
export type { SalesCounter } from './profile.service.ts';
export { userReadModel } from './repository.ts';
export type { UserReadModel } from './mapper.ts';

/**
 * The parts of accounts that need no other module's service, built first: the server's side
 * (`admin`), profiles and presence (`profile`) and tokens (`tokens`; the clients service is given
 * `tokens.dropClientTokens`). `salesCount` answers the user object's Sales count (the members service's).
 */
export function createAccountsBase(ctx: AppContext, salesCount: SalesCounter) {
  const admin = createAccountsAdmin(ctx);
  const profile = createProfileService(ctx, salesCount);
  const tokens = createTokensService(ctx, { seen: profile.seen, serverSecret: admin.serverSecret });
  return { admin, profile, tokens };
}

export type AccountsBase = ReturnType<typeof createAccountsBase>;

/**
 * Accounts, OAuth tokens and verification codes (docs/interface.md §5): the module's surface. Each
 * kind of caller has its service (sign-in and sign-up, codes and reset, profile, tokens, admin);
 * the surface holds them and, flat, every method, which is what the routes and other modules call.
 */
export function createAccountsService(ctx: AppContext, base: AccountsBase, clients: ClientsService) {
  const { admin, profile, tokens } = base;
  const codes = createCodesService(ctx, consoleClientOf(clients));
  const signIn = createSignInService(ctx, { clients, tokens, codes, admin });
  return { admin, profile, tokens, codes, signIn, ...admin, ...profile, ...tokens, ...codes, ...signIn };
}

export type AccountsService = ReturnType<typeof createAccountsService>;
