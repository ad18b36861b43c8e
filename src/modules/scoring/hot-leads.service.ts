import type { AppContext } from '../../context.ts';
import { badRequest, failure } from '../../http/errors.ts';
import type { Page } from '../../http/paging.ts';
import type { AccessService, Actor } from '../access/service.ts';
import type { RisenCustomer } from '../customers/service.ts';
import { type AccountKind, groupByAccount } from './accounts.ts';
import { type LastSignal, type Reason, decayed, halfLifeMs } from './points.ts';
import { type ScoreReason, type SignalOut, presentReasons, presentSignal, rounded } from './reasons.ts';
import type { ScoringRepository } from './repository.ts';
import type { ScoringRules } from './rules.ts';

/** A customer whose score rose, as the hot leads answer it (docs/scoring.md, "Hot leads"). */
export interface HotLead {
  customerId: string;
  name: string | null;
  company: string | null;
  email: string | null;
  phone: string | null;
  svcUserId: string;
  score: number;
  /** The points of the latest rise, when it was, and the signal that made it. */
  rise: number;
  risenAt: string;
  lastSignal: SignalOut | null;
  scoreReasons: ScoreReason[];
}

/** A buying group as one account: its members (the hot leads of one company), their scores summed and the largest. */
export interface HotAccount {
  account: string;
  accountType: AccountKind;
  score: number;
  maxScore: number;
  risenAt: string;
  memberCount: number;
  members: HotLead[];
}

/** Customers a grouped answer is made from: the most recently risen ones the caller may see. */
export const GROUP_WINDOW = 1000;
/** Members an account lists at most (`memberCount` counts them all). */
export const ACCOUNT_MEMBERS_SHOWN = 20;

export interface HotLeadsInput {
  /** `svc_user_id`: a member's platform user id, or `all` (the default). */
  ownerId: string | undefined;
  page: Page;
  /** `group_by`: `company` groups buying groups into accounts. */
  groupBy: string | undefined;
}

/** What a hot lead shows of its customer's state (none: the state is gone meanwhile). */
type StateShown = { value: number | null; ref_at: number | null; rise: number | null; reasons: string | null; last_signal: string | null };

/** The score now of a state (0 without one): its value decayed from its reference time, whatever half-life keyed it. */
const scoreOf = (state: StateShown | undefined, now: number, halfLife: number): number =>
  state === undefined || state.value === null ? 0 : decayed(Number(state.value), Number(state.ref_at), now, halfLife);

const parse = <T>(text: string | null, otherwise: T): T => {
  try {
    return text === null ? otherwise : (JSON.parse(text) as T);
  } catch {
    return otherwise;
  }
};

/**
 * The hot leads (docs/scoring.md): the customers the caller may see (as the customer list: Sales
 * their own) whose score rose most recently, with their score, reasons and last signal; or grouped by
 * account (company, else e-mail domain).
 */
export function createHotLeads(
  ctx: AppContext,
  deps: { access: AccessService; repo: ScoringRepository; rulesOf: (appId: string) => Promise<ScoringRules> },
) {
  const { access, repo, rulesOf } = deps;
  const clock = ctx.clock;

  function lead(c: RisenCustomer, state: StateShown | undefined, halfLife: number, now: number): HotLead {
    const last = parse<LastSignal | null>(state?.last_signal ?? null, null);
    return {
      customerId: c.id,
      name: c.name,
      company: c.company,
      email: c.email,
      phone: c.phone,
      svcUserId: String(c.owner_id),
      score: rounded(scoreOf(state, now, halfLife)),
      rise: rounded(Number(state?.rise ?? 0)),
      risenAt: clock.format(Number(c.score_rise_at)),
      lastSignal: last === null ? null : presentSignal(clock, last),
      scoreReasons: presentReasons(clock, parse<Reason[]>(state?.reasons ?? null, []), now, halfLife),
    };
  }

  /** Whose customers: the caller's visibility as the customer list's (Sales: their own; naming a colleague is refused). */
  function ownerOf(actor: Actor, raw: string | undefined): number | null {
    const text = raw?.trim() ?? '';
    if (text === '' || text === 'all') return access.visibleOwner(actor, undefined);
    if (!/^\d{1,10}$/.test(text)) throw badRequest("Invalid parameter 'svc_user_id': a platform user id or 'all'");
    return access.visibleOwner(actor, Number(text));
  }

  async function accounts(appId: string, ownerId: number | null, page: Page, halfLife: number): Promise<HotAccount[]> {
    const now = clock.now();
    const groups = groupByAccount(await repo.hotWindow(appId, ownerId, GROUP_WINDOW)).slice(page.offset, page.offset + page.limit);
    const shown = groups.map((g) => g.members.slice(0, ACCOUNT_MEMBERS_SHOWN));
    const states = new Map(
      (
        await repo.committedStates(
          appId,
          groups.flatMap((g) => g.members.map((c) => c.id)),
        )
      ).map((s) => [s.customer_id, s]),
    );
    return groups.map((g, i) => {
      const scores = g.members.map((c) => scoreOf(states.get(c.id), now, halfLife));
      const first = g.members[0] as RisenCustomer;
      return {
        account: g.kind === 'customer' ? (first.name ?? first.id) : g.name,
        accountType: g.kind,
        score: rounded(scores.reduce((a, b) => a + b, 0)),
        maxScore: rounded(Math.max(...scores)),
        risenAt: clock.format(Number(first.score_rise_at)),
        memberCount: g.members.length,
        members: (shown[i] ?? []).map((c) => lead(c, states.get(c.id), halfLife, now)),
      };
    });
  }

  return {
    /** A page of hot leads, most recent rise first; `group_by=company`: a page of accounts. */
    async list(actor: Actor, input: HotLeadsInput): Promise<HotLead[] | HotAccount[]> {
      const appId = actor.app.id;
      const groupBy = input.groupBy?.trim() ?? '';
      if (groupBy !== '' && groupBy !== 'company') throw failure('group_by_invalid', `Unknown group_by '${groupBy.slice(0, 32)}': company`);
      const ownerId = ownerOf(actor, input.ownerId);
      const halfLife = halfLifeMs(await rulesOf(appId));
      if (groupBy === 'company') return accounts(appId, ownerId, input.page, halfLife);
      const rows = await repo.hotLeads(appId, ownerId, input.page.offset, input.page.limit);
      const now = clock.now();
      return rows.map((r) => lead(r, r, halfLife, now));
    },
  };
}

export type HotLeads = ReturnType<typeof createHotLeads>;
