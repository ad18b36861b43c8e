import type { AppContext } from '../../context.ts';
import { isUniqueViolation } from '../../db/index.ts';
import { failure, fieldFailure } from '../../http/errors.ts';
import { timeOrderedUuid } from '../../lib/ids.ts';
import { hashPassword, randomToken } from '../../lib/secrets.ts';
import type { Actor } from '../access/service.ts';
import type { AccountsService } from '../accounts/service.ts';
import type { CustomerWritePath } from '../customers/service.ts';
import type { FileViewer } from '../files/service.ts';
import type { HistoriesService } from '../histories/service.ts';
import type { RoomReads } from '../rooms/service.ts';
import { hasAccessList, parseAccessList } from './access-lists.ts';
import { AGREEMENT_MAX, type LinkInput, PASSCODE_RE, parseFormFields, parseTags, str, webAddress } from './link-input.ts';
import type { LinkRow } from './mapper.ts';
import { linksRepository } from './repository.ts';

/** A new link: its fields, and whether its record shows its viewer address (`url`). */
export interface CreateLink {
  input: LinkInput;
  withUrl: boolean;
}

/** An edit of a link: the fields given change. */
export interface EditLink {
  linkId: string;
  input: LinkInput;
  withUrl: boolean;
}

export interface LinkManagementDeps {
  accounts: Pick<AccountsService, 'userById'>;
  files: Pick<FileViewer, 'viewerFile'>;
  customers: Pick<CustomerWritePath, 'viewerCustomers'>;
  /** The Link record answered (the histories module maps links for its list too). */
  histories: Pick<HistoriesService, 'linkRecord'>;
  /** Whether the server sends mail (the e-mail gate's codes need it); none: it does not. */
  mail?: { configured(): boolean };
  /** Whether the actor may share a data room (a link of type 4). */
  rooms: Pick<RoomReads, 'usable'>;
  /** The module's repository (a spec hands a fake). */
  repository?: Pick<typeof linksRepository, 'insert' | 'find' | 'update' | 'clearPasscodeFailures'> &
    Partial<Pick<typeof linksRepository, 'nextAgreementVersion'>>;
}

type Columns = Partial<LinkRow>;

/**
 * Link management (docs/links.md), for the project's signed-in members: making, editing and
 * disabling links. The actor is the caller's membership, resolved by the auth hook: any member makes
 * links (theirs); Master and Admin change any link of the project, Sales their own.
 */
export function createLinkManagement(ctx: AppContext, deps: LinkManagementDeps) {
  const { accounts, files, customers, histories, rooms } = deps;
  const repo = deps.repository ?? linksRepository;
  const db = ctx.database.db;
  const { clock } = ctx;

  /** The link's target: its file (a file of the project that rendered) or its web address. */
  async function targetColumns(actor: Actor, input: LinkInput, current: LinkRow | null): Promise<Columns> {
    const type = input.type ?? current?.type ?? 1;
    const fileId = input.file_id !== undefined ? str(input.file_id) : (current?.file1 ?? null);
    const websiteIn = input.website !== undefined ? str(input.website) : (current?.website ?? null);
    if (type === 4) return roomColumns(actor, input, current);
    if (type === 1) {
      if (fileId === null) throw fieldFailure('file_id', 'required', 'file_id is required for a file link (type 1)');
      if (input.file_id !== undefined || current === null || current.file1 !== fileId) {
        const file = await files.viewerFile(actor.app.id, fileId);
        if (file === null) throw failure('file_not_found', `file ${fileId.slice(0, 64)} is not a file of this project`);
        if (file.status === 'failed') throw failure('invalid_file', 'The file could not be rendered: upload a new version of it first');
      }
      return { type, file1: fileId, website: null, room_id: null };
    }
    if (websiteIn === null)
      throw fieldFailure('website', 'required', 'website is required for a web page (type 2) or redirect (type 3) link');
    const website = webAddress(websiteIn);
    if (website === null)
      throw fieldFailure('website', 'invalid', 'website must be an absolute http:// or https:// URL of at most 2048 characters');
    return { type, website, file1: null, room_id: null };
  }

  /** A room link's room (docs/rooms.md): a room of the project the actor may use (Sales: their own). */
  async function roomColumns(actor: Actor, input: LinkInput, current: LinkRow | null): Promise<Columns> {
    const roomId = input.room_id !== undefined ? str(input.room_id) : (current?.room_id ?? null);
    if (roomId === null) throw fieldFailure('room_id', 'required', 'room_id is required for a data room link (type 4)');
    if ((input.room_id !== undefined || current?.room_id !== roomId) && !(await rooms.usable(actor, roomId))) {
      throw failure('room_not_found', `room ${roomId.slice(0, 64)} is not a room of this project you may share`);
    }
    return { type: 4, room_id: roomId, file1: null, website: null };
  }

  /** The customer a link is directed at, if one is given: Sales direct links at their own customers only. */
  async function customerColumns(actor: Actor, input: LinkInput): Promise<Columns> {
    if (input.customer_id === undefined) return {};
    const customerId = str(input.customer_id);
    if (customerId === null) return { customer_id: null, is_directional: 0 };
    const found = (await customers.viewerCustomers(actor.app.id, [customerId])).get(customerId);
    // Others' customers are as unknown as missing ones.
    if (!found || (!actor.isManager && found.ownerId !== actor.userId)) throw failure('customer_not_found');
    return { customer_id: customerId, is_directional: 1 };
  }

  /** The remark, public title, UTM fields, form, tags and expiry given. */
  function detailColumns(input: LinkInput): Columns {
    const out: Columns = {};
    for (const key of ['remark', 'title', 'utm_source', 'utm_medium', 'utm_campaign', 'utm_content', 'utm_term'] as const) {
      const v = key === 'title' ? input.title?.trim() : input[key];
      if (v === undefined) continue;
      const max = key === 'remark' ? 4000 : key === 'title' ? 200 : 255;
      if (v.length > max) throw fieldFailure(key, 'invalid', `${key} must be at most ${max} characters`);
      out[key] = v === '' ? null : v;
    }
    if (input.form_position !== undefined) out.form_position = input.form_position === 0 ? null : input.form_position;
    const formFields = parseFormFields(input.form_fields);
    if (formFields !== undefined) out.form_fields = formFields;
    const tags = parseTags(input.tags);
    if (tags !== null) out.tags = JSON.stringify(tags);
    if (input.expires_at !== undefined) {
      if (input.expires_at.trim() === '') out.expires_at = null;
      else {
        const at = clock.parse(input.expires_at.trim());
        if (at === null) throw fieldFailure('expires_at', 'invalid', 'expires_at must be yyyy-MM-dd HH:mm:ss');
        if (at <= clock.now()) throw fieldFailure('expires_at', 'invalid', 'expires_at must be in the future');
        out.expires_at = at;
      }
    }
    return out;
  }

  /** The gates and options given: passcode (hashed; empty removes it), download, e-mail gate, embedding, watermark. */
  async function accessColumns(input: LinkInput): Promise<Columns> {
    const out: Columns = {};
    if (input.passcode !== undefined) {
      if (input.passcode === '') out.passcode_hash = null;
      else if (!PASSCODE_RE.test(input.passcode)) throw fieldFailure('passcode', 'invalid', 'passcode must be 4 to 64 characters');
      else out.passcode_hash = await hashPassword(input.passcode, ctx.config.insecureFastHash ? { N: 2 ** 10, r: 8, p: 1 } : undefined);
    }
    if (input.allow_download !== undefined) out.allow_download = input.allow_download;
    if (input.email_gate !== undefined) out.email_gate = input.email_gate;
    if (input.embed !== undefined) out.embed = input.embed;
    if (input.watermark !== undefined) out.watermark = input.watermark;
    return out;
  }

  /**
   * Who may pass the e-mail gate: the code by mail (needs SMTP), the allow and deny lists. Either
   * turns the gate on, whatever `email_gate` says, while it is set.
   */
  function verificationColumns(input: LinkInput, current: LinkRow | null, given: Columns): Columns {
    const out: Columns = {};
    if (input.email_verify !== undefined) {
      if (input.email_verify === 1 && deps.mail?.configured() !== true) {
        throw failure('mail_not_configured', 'email_verify mails a code to the reader: the server sends no e-mail (SMTP_URL is not set)');
      }
      out.email_verify = input.email_verify;
    }
    const allow = parseAccessList('allow_list', input.allow_list);
    if (allow !== undefined) out.allow_list = allow;
    const deny = parseAccessList('deny_list', input.deny_list);
    if (deny !== undefined) out.deny_list = deny;
    const after = { ...current, ...given, ...out };
    if (after.email_verify === 1 || hasAccessList(after)) out.email_gate = 1;
    return out;
  }

  /** A new agreement text: its version one more than the last (kept when the text is the same); '' removes it. */
  function agreementColumns(input: LinkInput, current: LinkRow | null): Columns {
    if (input.agreement === undefined) return {};
    const text = input.agreement.trim();
    if (text === '') return { agreement: null };
    if (text.length > AGREEMENT_MAX) throw fieldFailure('agreement', 'invalid', `agreement must be at most ${AGREEMENT_MAX} characters`);
    if (current !== null && current.agreement === text) return {};
    return { agreement: text, agreement_version: (current?.agreement_version ?? 0) + 1 };
  }

  /** The link's columns from an input, over `current` (an edit) or from scratch (a create). */
  async function linkColumns(actor: Actor, input: LinkInput, current: LinkRow | null): Promise<Columns> {
    const out: Columns = {};
    if (input.name !== undefined || current === null) {
      const name = input.name?.trim() ?? '';
      if (name === '') throw failure('name_required', 'name is required');
      if (name.length > 255) throw failure('name_invalid', 'name must be at most 255 characters');
      out.name = name;
    }
    Object.assign(out, await targetColumns(actor, input, current), await customerColumns(actor, input));
    Object.assign(out, detailColumns(input), await accessColumns(input), agreementColumns(input, current));
    Object.assign(out, verificationColumns(input, current, out));
    return out;
  }

  /** A link of the project the actor may change: Master and Admin any, Sales their own; else link_not_found. */
  async function changeable(actor: Actor, linkId: string): Promise<LinkRow> {
    const link = await repo.find(db, actor.app.id, linkId);
    if (!link || (!actor.isManager && link.creator_id !== actor.userId)) throw failure('link_not_found');
    return link;
  }

  async function record(actor: Actor, linkId: string, withUrl: boolean) {
    const found = await histories.linkRecord(actor, linkId, withUrl);
    if (found === undefined) throw failure('link_not_found');
    return found;
  }

  /** Stores a new link with an unguessable share token (128 random bits; a clash, practically never, draws again). */
  async function insert(actor: Actor, id: string, columns: Columns): Promise<void> {
    const user = await accounts.userById(actor.userId);
    const now = clock.now();
    for (let attempt = 1; ; attempt += 1) {
      const shareToken = randomToken(16);
      try {
        await repo.insert(db, {
          id,
          app_id: actor.app.id,
          creator_id: actor.userId,
          creator_name: user?.name ?? null,
          share_token: shareToken,
          form_type: '1',
          src: 'link_view',
          is_directional: 0,
          customer_id: null,
          read_seq: 0,
          created_at: now,
          updated_at: now,
          ...columns,
          name: columns.name ?? '',
          type: columns.type ?? 1,
          short_name: null,
          conference_id: null,
          file2: null,
          file3: null,
          file4: null,
          clue_id: null,
          official_account_id: null,
          form_pop_time: null,
          weixin_grant_type: null,
        });
        return;
      } catch (err) {
        if (!isUniqueViolation(err) || attempt >= 3) throw err;
      }
    }
  }

  return {
    /** Any member of the project makes a link; it is theirs (creatorId). Answers its Link record. */
    async create(actor: Actor, req: CreateLink) {
      const columns = await linkColumns(actor, req.input, null);
      const id = timeOrderedUuid();
      await insert(actor, id, columns);
      return record(actor, id, req.withUrl);
    },

    /** Master and Admin edit any link of the project, Sales their own; fields not given stay. */
    async update(actor: Actor, req: EditLink) {
      const link = await changeable(actor, req.linkId);
      const { agreement_version: newVersion, ...columns } = await linkColumns(actor, req.input, link);
      const patch = { ...columns, updated_at: clock.now() };
      if (newVersion === undefined) await repo.update(db, actor.app.id, req.linkId, patch);
      else {
        // A new text is the next version, counted in the row (two edits at once are two versions).
        await db.transaction().execute(async (trx) => {
          await repo.update(trx, actor.app.id, req.linkId, patch);
          await (repo.nextAgreementVersion ?? linksRepository.nextAgreementVersion)(trx, actor.app.id, req.linkId);
        });
      }
      // A new passcode (or none) ends a lockout of the old one.
      if (columns.passcode_hash !== undefined) await repo.clearPasscodeFailures(db, actor.app.id, req.linkId);
      return record(actor, req.linkId, req.withUrl);
    },

    /** Disables the link: its page answers 410 Gone from now on; its views and counters stay. */
    async disable(actor: Actor, req: { linkId: string }) {
      const link = await changeable(actor, req.linkId);
      if (link.status === 1) {
        const now = clock.now();
        await repo.update(db, actor.app.id, req.linkId, { status: 0, disabled_at: now, updated_at: now });
      }
      return true as const;
    },
  };
}

export type LinkManagement = ReturnType<typeof createLinkManagement>;
