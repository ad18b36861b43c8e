import type { AppContext } from '../../context.ts';
import { AppError } from '../../http/errors.ts';
import type { ProjectsService } from '../projects/service.ts';
import { admits } from './access-lists.ts';
import type { LinkAgreements } from './agreements.service.ts';
import { type FormValues, type LinkForms, readFormFields } from './form.service.ts';
import { type Gate, type LinkGates, nextGate } from './gates.ts';
import type { LinkRow } from './mapper.ts';
import type { LinkSigning, Unlocked } from './signing.ts';
import type { EmailCodes } from './verification.service.ts';
import { type Brand, type EmailGateModel, type ViewerAnswer, type VisitorRequest, readerTitle } from './viewer-model.ts';

/**
 * What a gate's form post comes to: the unlock cookie to set (when it changes) and the page to answer;
 * without a page the browser goes back to the viewer, which shows what comes next. Undefined: the link
 * does not open (or its passcode is not given yet).
 */
export type GatePost = { cookie?: string; answer?: ViewerAnswer } | undefined;

export interface LinkGatePostsDeps {
  projects: Pick<ProjectsService, 'brand' | 'region'>;
  gates: LinkGates;
  signing: LinkSigning;
  forms: LinkForms;
  codes: EmailCodes;
  agreements: Pick<LinkAgreements, 'accept'>;
}

/** A field people never see, which form-filling bots fill. */
export const honeypotFilled = (body: Record<string, unknown>) => typeof body.url === 'string' && body.url.trim() !== '';

/** A ticked box as browsers send it. */
const ticked = (v: unknown) => v === '1' || v === 'on' || v === 'yes' || v === 'true' || v === 1 || v === true;

/**
 * The e-mail gate and the agreement (docs/links.md, "Who is reading"), the forms a reader posts
 * between the passcode and the document: the address (and a name), checked against the link's lists;
 * with `email_verify`, the code mailed to it; then the agreement. Each answers the unlock cookie that
 * proves what was passed, and the page of the next step when it has something to say.
 */
export function createLinkGatePosts(ctx: AppContext, deps: LinkGatePostsDeps) {
  const { gates, signing, forms, codes } = deps;
  const { clock } = ctx;

  /** The link of a share token, opened and its passcode given, with what its cookie proves; else undefined. */
  async function openLink(shareToken: string, visitor: VisitorRequest) {
    const found = await gates.linkOf(shareToken, visitor.within);
    if (!('link' in found)) return undefined;
    const unlocked = await gates.unlockedOf(found.link, visitor.unlock);
    if (found.link.passcode_hash !== null && !unlocked.passcode) return undefined;
    return { link: found.link, unlocked };
  }

  const heading = async (link: LinkRow, shareToken: string) => ({
    shareToken,
    title: readerTitle(link),
    brand: await deps.projects.brand(link.app_id),
  });

  /** The e-mail gate's page again, saying what was wrong. */
  const emailPage = async (link: LinkRow, shareToken: string, problem: Partial<EmailGateModel>): Promise<GatePost> => ({
    answer: { kind: 'email', ...(await heading(link, shareToken)), invalid: false, verify: link.email_verify === 1, ...problem },
  });

  const cookieOf = (link: LinkRow, unlocked: Unlocked) => signing.unlockCookie(link, unlocked);

  /** The gate's address and name as given; null when the address is not one. */
  async function addressOf(link: LinkRow, body: Record<string, unknown>): Promise<FormValues | null> {
    try {
      const fields = readFormFields(link, body, { region: await deps.projects.region(link.app_id), only: ['email', 'name'] });
      return fields.email === undefined ? null : fields;
    } catch (err) {
      if (err instanceof AppError) return null;
      throw err;
    }
  }

  /** With `email_verify`: mails the address its code and waits for it (the cookie says which address). */
  async function askCode(
    link: LinkRow,
    t: { shareToken: string; unlocked: Unlocked; fields: FormValues; bot: boolean },
  ): Promise<GatePost> {
    const email = t.fields.email as string;
    const now = clock.now();
    const waiting = await cookieOf(link, { ...t.unlocked, gate: false, verified: false, email, name: t.fields.name, pendingSince: now });
    // A bot's form gets the same answer, and no mail.
    const asked = t.bot ? { sent: true as const } : await codes.request(link, email, now);
    if ('sent' in asked) return { cookie: waiting };
    if ('unsent' in asked) return emailPage(link, t.shareToken, { unsent: true });
    if ('busy' in asked) return emailPage(link, t.shareToken, { busy: asked.busy });
    return { cookie: waiting, answer: { kind: 'code', ...(await heading(link, t.shareToken)), email, name: t.fields.name, ...asked } };
  }

  return {
    /** The page of the gate a reader meets next (from nextGate), as `GET /l/{token}` answers it. */
    gatePage(
      link: LinkRow,
      gate: Gate,
      unlocked: Unlocked,
      head: { shareToken: string; title: string; brand: Brand | null },
    ): ViewerAnswer {
      if (gate === 'passcode') return { kind: 'passcode', ...head, wrong: false };
      if (gate === 'email') return { kind: 'email', ...head, invalid: false, verify: link.email_verify === 1 };
      if (gate === 'code') return { kind: 'code', ...head, email: unlocked.email ?? '', name: unlocked.name };
      return { kind: 'agreement', ...head, text: link.agreement ?? '', version: link.agreement_version, name: unlocked.name };
    },

    /**
     * The e-mail gate's address (and a name). An address the link's lists refuse is told so, and
     * nothing is written or sent. Without `email_verify` it is a form like the link's own (a clue, a
     * customer matched or made) and passes the gate; with it, the address is mailed its code. `change`
     * forgets the address awaiting its code.
     */
    async passGate(shareToken: string, body: Record<string, unknown>, visitor: VisitorRequest): Promise<GatePost> {
      const open = await openLink(shareToken, visitor);
      if (open === undefined) return undefined;
      const { link, unlocked } = open;
      if (body.change === '1') return { cookie: await cookieOf(link, { ...unlocked, pendingSince: undefined }) };
      const fields = await addressOf(link, body);
      if (fields === null) return emailPage(link, shareToken, { invalid: true });
      const email = fields.email as string;
      if (!admits(link, email)) return emailPage(link, shareToken, { refused: true });
      const bot = honeypotFilled(body);
      if (link.email_verify === 1) return askCode(link, { shareToken, unlocked, fields, bot });
      if (!bot && !(await gates.isMember(link, visitor.userId))) {
        await forms.submit(link, visitor, { fields, formType: '2', viewId: null });
      }
      const passed = { ...unlocked, gate: true, email, name: fields.name, verified: false, pendingSince: undefined };
      return { cookie: await cookieOf(link, passed) };
    },

    /**
     * The code mailed to the address the gate awaits: the right one passes the gate with the address
     * proved (a clue, the customer matched or made, the visitor's tie to it verified); a wrong one is
     * counted (the CODE_FAILURES-th locks the address); a locked address's right code is refused too.
     */
    async verify(shareToken: string, body: Record<string, unknown>, visitor: VisitorRequest): Promise<GatePost> {
      const open = await openLink(shareToken, visitor);
      if (open === undefined) return undefined;
      const { link, unlocked } = open;
      if (nextGate(link, unlocked, clock.now()) !== 'code') return {};
      const email = unlocked.email as string;
      const page = { kind: 'code' as const, ...(await heading(link, shareToken)), email, name: unlocked.name };
      const code = typeof body.code === 'string' ? body.code.replace(/[\s-]/g, '') : '';
      if (!/^\d{6}$/.test(code)) return { answer: { ...page, problem: 'malformed' } };
      const checked = await codes.check(link, email, code, clock.now());
      if ('lockedFor' in checked) return { answer: { ...page, lockedFor: checked.lockedFor } };
      if ('wrong' in checked) return { answer: { ...page, problem: 'wrong' } };
      if ('expired' in checked) return { answer: { ...page, problem: 'expired' } };
      if (!(await gates.isMember(link, visitor.userId))) {
        const fields: FormValues = { email, ...(unlocked.name !== undefined ? { name: unlocked.name } : {}) };
        await forms.submit(link, visitor, { fields, formType: '2', viewId: null, verified: true });
      }
      return { cookie: await cookieOf(link, { ...unlocked, gate: true, verified: true, pendingSince: undefined }) };
    },

    /**
     * The agreement accepted: the box ticked for the version shown (a text changed meanwhile is shown
     * again); recorded with who (the gate's address, the name), unless a member previews the link.
     */
    async agree(shareToken: string, body: Record<string, unknown>, visitor: VisitorRequest): Promise<GatePost> {
      const open = await openLink(shareToken, visitor);
      if (open === undefined) return undefined;
      const { link, unlocked } = open;
      if (nextGate(link, unlocked, clock.now()) !== 'agreement' || link.agreement === null) return {};
      const typed = typeof body.name === 'string' ? body.name.trim().slice(0, 255) : '';
      const name = typed !== '' ? typed : (unlocked.name ?? null);
      const page = { kind: 'agreement' as const, ...(await heading(link, shareToken)), text: link.agreement };
      const shown = { ...page, version: link.agreement_version, name: name ?? undefined };
      if (String(body.version) !== String(link.agreement_version)) return { answer: { ...shown, problem: 'changed' } };
      if (!ticked(body.agree)) return { answer: { ...shown, problem: 'unticked' } };
      if (!(await gates.isMember(link, visitor.userId))) {
        const who = { email: unlocked.gate ? (unlocked.email ?? null) : null, name };
        await deps.agreements.accept({ ...link, agreement: link.agreement }, visitor, who);
      }
      return { cookie: await cookieOf(link, { ...unlocked, agreement: link.agreement_version }) };
    },
  };
}

export type LinkGatePosts = ReturnType<typeof createLinkGatePosts>;
