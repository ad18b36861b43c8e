import type { AppContext } from '../../context.ts';
import { isUniqueViolation } from '../../db/index.ts';
import { failure, fieldFailure } from '../../http/errors.ts';
import { isEmail } from '../../lib/formats.ts';
import type { UpdateUserInput } from './identity.ts';
import { type PlatformUser, toPlatformUser } from './mapper.ts';
import { type UserRow, accountsRepository as repo } from './repository.ts';

const LAST_SEEN_RESOLUTION_MS = 60 * 1000;

/** How many Sales members the user has across the live projects they created (the user object's `salesCount`). */
export type SalesCounter = (userId: number) => Promise<number>;

/** The profile fields of an update, checked; their patch of the user's row. */
function profilePatch(input: UpdateUserInput): Partial<UserRow> {
  if (input.sex !== undefined && input.sex !== 1 && input.sex !== 2) throw failure('sex_invalid');
  const texts = {
    name: input.name,
    city: input.city,
    province: input.province,
    company: input.company,
    industry: input.industry,
    position: input.position,
  };
  const patch: Partial<UserRow> = {};
  for (const [field, value] of Object.entries(texts)) {
    if (value === undefined) continue;
    const max = field === 'name' ? 64 : 128;
    if (value.length > max) throw fieldFailure(field, 'invalid', `${field} must be at most ${max} characters`);
    (patch as Record<string, string | null>)[field] = value.trim() === '' ? null : value.trim();
  }
  if (input.sex !== undefined) patch.sex = input.sex;
  return patch;
}

/**
 * A user's own profile and presence, for the user info and update calls, and the look-up by id other
 * modules make (members adds a user by it, campaigns and links name the sender).
 */
export function createProfileService(ctx: AppContext, salesCount: SalesCounter) {
  const db = ctx.database.db;
  const clock = ctx.clock;
  // user id → when this process last wrote the user's presence.
  const touched = new Map<number, number>();

  /** The e-mail part of an update's patch: cleared, kept, or changed (then unconfirmed again). */
  async function emailPatch(caller: UserRow, input: string): Promise<Partial<UserRow>> {
    const email = input.trim();
    if (email === '') {
      if (caller.phone_num === null) throw failure('email_invalid', 'An account registered by e-mail must keep an e-mail address');
      return { email: null, email_lower: null, email_status: 0 };
    }
    if (!isEmail(email)) throw failure('email_invalid', 'email is not a valid e-mail address');
    if (await repo.emailTakenByOther(db, email.toLowerCase(), caller.id)) throw failure('email_existed');
    return email.toLowerCase() !== caller.email_lower ? { email, email_lower: email.toLowerCase(), email_status: 0 } : { email };
  }

  async function toResponse(user: UserRow): Promise<PlatformUser> {
    return toPlatformUser(user, await salesCount(user.id), clock);
  }

  return {
    /** A platform user by id (members are added by it). */
    userById(id: number): Promise<UserRow | undefined> {
      return repo.findUserById(db, id);
    },

    toResponse,

    async updateUser(caller: UserRow, input: UpdateUserInput): Promise<PlatformUser> {
      if (input.user_id !== undefined && input.user_id !== caller.id) {
        throw failure('forbidden', 'You can only update your own profile');
      }
      const patch = profilePatch(input);
      if (input.email !== undefined) Object.assign(patch, await emailPatch(caller, input.email));
      let updated: UserRow | undefined;
      try {
        updated = await repo.updateUser(db, caller.id, { ...patch, updated_at: clock.now() });
      } catch (err) {
        if (isUniqueViolation(err)) throw failure('email_existed');
        throw err;
      }
      if (!updated) throw failure('user_not_found');
      return toResponse(updated);
    },

    /**
     * Notes that the user was seen now: written at most once a minute per user by each process (its
     * own table, so no cache is emptied).
     */
    async seen(userId: number): Promise<void> {
      const now = clock.now();
      if (now - (touched.get(userId) ?? -Infinity) <= LAST_SEEN_RESOLUTION_MS) return;
      if (touched.size >= 100_000) touched.clear(); // bounded: forgetting costs one write per user
      touched.set(userId, now);
      await repo.touchLastSeen(db, userId, now);
    },
  };
}

export type ProfileService = ReturnType<typeof createProfileService>;
