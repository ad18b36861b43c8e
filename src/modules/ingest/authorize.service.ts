import { accessDenied } from '../../http/errors.ts';
import type { AccessService } from '../access/service.ts';
import type { AccountsService } from '../accounts/service.ts';
import type { ProjectsService } from '../projects/service.ts';
import type { IngestCaller } from './batch.service.ts';

/** How a batch proves it may write to the project (docs/interface.md §12). */
export interface IngestCredentials {
  secret?: string | undefined;
  token?: string | undefined;
}

/**
 * Who may ingest into a project, for the ingestion route: the project secret (its creator owns the
 * customers that name no owner), else a Master/Admin token (its user owns them).
 */
export function createIngestAuthorizer(deps: { access: AccessService; accounts: AccountsService; projects: ProjectsService }) {
  const { access, accounts, projects } = deps;
  return {
    /** Checked before the body is read; the result is what `ingest` takes. */
    async authorize(appId: string, creds: IngestCredentials): Promise<IngestCaller> {
      if (creds.secret !== undefined && creds.secret !== '') {
        const creator = await projects.creatorBySecret(appId, creds.secret);
        if (creator !== null) return { appId, defaultOwner: creator, by: 'secret' };
      }
      if (creds.token !== undefined && creds.token !== '') {
        const user = await accounts.authenticate(creds.token);
        accounts.assertActive(user);
        const m = await access.manager(appId, user.id);
        return { appId, defaultOwner: m.userId, by: 'token' };
      }
      throw accessDenied(creds.secret ? 'The project secret is wrong' : 'Send the project secret (X-App-Secret) or a bearer token');
    },
  };
}
