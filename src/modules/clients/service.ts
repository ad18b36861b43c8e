import { randomBytes } from 'node:crypto';
import type { AppContext } from '../../context.ts';
import { failure } from '../../http/errors.ts';
import { randomToken, safeEqual, sha256 } from '../../lib/secrets.ts';
import { clientsRepository } from './repository.ts';
import { type Database, isUniqueViolation } from '../../db/index.ts';
import type { Kysely } from 'kysely';

/** Deletes every token issued through a client, in the transaction that revokes it (the accounts tokens service's). */
export type ClientTokensDropper = (trx: Kysely<Database>, clientId: string) => Promise<void>;

export interface ClientSummary {
  client_id: string;
  name: string;
  created_at: string;
  revoked: boolean;
}

/**
 * The web console's own client: public (it has no secret, so the token calls refuse it), used only by
 * the console's session endpoints, which check that a request comes from the console's origin.
 */
export const CONSOLE_CLIENT_ID = 'console';
const CLIENT_ID_RE = /^[A-Za-z0-9._-]{3,64}$/;
const CLIENT_SECRET_RE = /^[\x21-\x7e]{16,200}$/;

/** OAuth clients (partners' ClientID/ClientSecret), managed by the operator from the CLI. */
export function createClientsService(ctx: AppContext, dropTokens: ClientTokensDropper) {
  const db = ctx.database.db;
  return {
    /**
     * Creates a client, with a generated id and secret or the ones given (a partner's existing
     * credentials); the secret is returned once and stored only as a hash.
     */
    async create(
      name: string,
      given: { clientId?: string; clientSecret?: string } = {},
    ): Promise<{ client_id: string; client_secret: string }> {
      const trimmed = name.trim();
      if (trimmed.length === 0 || trimmed.length > 100) throw failure('client_name_invalid');
      const clientId = given.clientId ?? `rc_${randomBytes(12).toString('hex')}`;
      if (given.clientId !== undefined && (!CLIENT_ID_RE.test(clientId) || clientId === CONSOLE_CLIENT_ID))
        throw failure('client_id_invalid');
      const secret = given.clientSecret ?? randomToken(32);
      if (given.clientSecret !== undefined && !CLIENT_SECRET_RE.test(secret)) throw failure('client_secret_invalid');
      const inserted = await clientsRepository.insertNew(db, {
        id: clientId,
        name: trimmed,
        secret_hash: sha256(secret),
        created_at: ctx.clock.now(),
        revoked_at: null,
      });
      // A given id may be taken (a revoked client keeps its id: its tokens named it).
      if (!inserted) throw failure('client_id_invalid', `client_id ${clientId} is in use`);
      return { client_id: clientId, client_secret: secret };
    },

    /**
     * Registers a client whose id and secret exist already (baked into scripts written for another
     * server). The secret is stored only as a hash, as for a created client.
     */
    async register(clientId: string, secret: string, name?: string): Promise<{ client_id: string; name: string }> {
      if (!/^[\x21-\x7e]{1,128}$/.test(clientId)) throw new Error('client id must be 1 to 128 printable characters without spaces');
      if (clientId === CONSOLE_CLIENT_ID) throw new Error(`client id ${CONSOLE_CLIENT_ID} is the web console's`);
      if (!/^[\x21-\x7e]{8,256}$/.test(secret)) throw new Error('client secret must be 8 to 256 printable characters without spaces');
      const label = (name ?? clientId).trim();
      if (label.length === 0 || label.length > 100) throw new Error('client name must be 1 to 100 characters');
      if (await clientsRepository.find(db, clientId)) throw new Error(`a client ${clientId} exists already`);
      try {
        await clientsRepository.insert(db, {
          id: clientId,
          name: label,
          secret_hash: sha256(secret),
          created_at: ctx.clock.now(),
          revoked_at: null,
        });
      } catch (err) {
        if (isUniqueViolation(err)) throw new Error(`a client ${clientId} exists already`);
        throw err;
      }
      return { client_id: clientId, name: label };
    },

    async list(): Promise<ClientSummary[]> {
      const rows = await clientsRepository.list(db);
      return rows.map((r) => ({
        client_id: r.id,
        name: r.name,
        created_at: ctx.clock.format(r.created_at),
        revoked: r.revoked_at !== null,
      }));
    },

    /** Revokes the client and drops every token issued through it, in one transaction; false if unknown. */
    revoke(clientId: string): Promise<boolean> {
      return db.transaction().execute(async (trx) => {
        if (!(await clientsRepository.markRevoked(trx, clientId, ctx.clock.now()))) return false;
        await dropTokens(trx, clientId);
        return true;
      });
    },

    /**
     * Makes the console's client exist (each server process does at start). Its stored secret hash
     * is empty, which no secret's hash equals: the client cannot authenticate on the token calls.
     */
    async ensureConsoleClient(): Promise<void> {
      await clientsRepository.insertIfAbsent(db, {
        id: CONSOLE_CLIENT_ID,
        name: 'Rapport web console (public, first-party)',
        secret_hash: '',
        created_at: ctx.clock.now(),
        revoked_at: null,
      });
    },

    /** True when the id names a client that exists and is not revoked. */
    async isLive(clientId: string): Promise<boolean> {
      const row = await clientsRepository.find(db, clientId);
      return row !== undefined && row.revoked_at === null;
    },

    /** True when the id names a live client and the secret matches (constant time). */
    async verify(clientId: string, secret: string): Promise<boolean> {
      const row = await clientsRepository.find(db, clientId);
      const matches = safeEqual(sha256(secret), row?.secret_hash ?? '');
      return row !== undefined && row.revoked_at === null && matches;
    },
  };
}

export type ClientsService = ReturnType<typeof createClientsService>;
