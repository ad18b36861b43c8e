import type { AppError } from '../../http/errors.ts';
import { failure } from '../../http/errors.ts';
import {
  type ParseContext,
  type ParsedBehaviour,
  type ParsedCall,
  type ParsedClue,
  type References,
  type ScopedTable,
  parseBehaviour,
  parseCall,
  parseClue,
  parsePost,
} from './bodies.ts';
import { type ParsedLink, type ParsedViewLog, parseLink, parseViewLog } from './link-bodies.ts';
import { ItemError, RECORD_ID_RE } from './reader.ts';

/** The table of each domain type's records. */
export const DOMAIN_TABLES = {
  Customer: 'customers',
  BehaviourLog: 'behaviour_logs',
  Call: 'calls',
  Link: 'links',
  LinkViewLog: 'link_view_logs',
  Clue: 'clues',
  Post: 'posts',
} as const satisfies Record<string, ScopedTable>;

export type DomainType = keyof typeof DOMAIN_TABLES;

interface ItemBase {
  index: number;
  domainId: string;
  refs: References;
}

/** One parsed item of a batch: its position, id, references and the row (or Customer body) to store. */
export type Item =
  | (ItemBase & { type: 'Customer'; body: Record<string, unknown>; ownerId: number | null })
  | (ItemBase & { type: 'BehaviourLog'; parsed: ParsedBehaviour })
  | (ItemBase & { type: 'Call'; parsed: ParsedCall })
  | (ItemBase & { type: 'Link'; parsed: ParsedLink })
  | (ItemBase & { type: 'LinkViewLog'; parsed: ParsedViewLog })
  | (ItemBase & { type: 'Clue'; parsed: ParsedClue })
  | (ItemBase & { type: 'Post'; parsed: ReturnType<typeof parsePost> });

/** A refused item: `{index, msg}` in the answer. */
export interface ItemProblem {
  index: number;
  msg: string;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** A Customer item: its body is validated by the customers module's writer; here only its id, project and owner. */
function customerItem(body: Record<string, unknown>, base: { index: number; domainId: string }, appId: string): Item {
  if (body.id !== undefined && body.id !== null && String(body.id) !== base.domainId) throw new ItemError('body.id must equal domainId');
  if (body.appId !== undefined && body.appId !== null && body.appId !== appId) {
    throw new ItemError('body.appId must be the project of the request path');
  }
  const owner = body.svcUserId ?? body.svc_user_id;
  let ownerId: number | null = null;
  if (owner !== undefined && owner !== null && owner !== '') {
    ownerId = Number(owner);
    if (!/^\d{1,10}$/.test(String(owner)) || !Number.isSafeInteger(ownerId)) throw new ItemError('svcUserId must be a platform user id');
  }
  // Owner, promoter and group are checked against the project by the customers module's validation.
  return { ...base, type: 'Customer', body, ownerId, refs: { customerIds: [], linkIds: [], scoped: [], memberIds: [] } };
}

/** Parses one event message of a batch; throws ItemError naming what is wrong. Pure. */
export function parseItem(raw: unknown, index: number, pc: Omit<ParseContext, 'domainId'>): Item {
  if (!isObject(raw)) throw new ItemError('item must be an object {event_type, domainType, domainId, body}');
  if (raw.event_type !== 'create') throw new ItemError("event_type must be 'create'");
  const type = raw.domainType;
  if (typeof type !== 'string' || !Object.hasOwn(DOMAIN_TABLES, type)) {
    throw new ItemError(`domainType must be one of ${Object.keys(DOMAIN_TABLES).join(', ')}`);
  }
  const domainId = raw.domainId;
  if (typeof domainId !== 'string' || !RECORD_ID_RE.test(domainId)) {
    throw new ItemError('domainId must be 1-64 characters of A-Z a-z 0-9 _ . : -');
  }
  if (!isObject(raw.body)) throw new ItemError('body must be an object');
  const body = raw.body;
  const c: ParseContext = { ...pc, domainId };
  const base = { index, domainId };
  switch (type as DomainType) {
    case 'Customer':
      return customerItem(body, base, pc.appId);
    case 'BehaviourLog': {
      const parsed = parseBehaviour(body, c);
      return { ...base, type: 'BehaviourLog', parsed, refs: parsed.refs };
    }
    case 'Call': {
      const parsed = parseCall(body, c);
      return { ...base, type: 'Call', parsed, refs: parsed.refs };
    }
    case 'Link': {
      const parsed = parseLink(body, c);
      return { ...base, type: 'Link', parsed, refs: parsed.refs };
    }
    case 'LinkViewLog': {
      const parsed = parseViewLog(body, c);
      return { ...base, type: 'LinkViewLog', parsed, refs: parsed.refs };
    }
    case 'Clue': {
      const parsed = parseClue(body, c);
      return { ...base, type: 'Clue', parsed, refs: parsed.refs };
    }
    case 'Post': {
      const parsed = parsePost(body, c);
      return { ...base, type: 'Post', parsed, refs: parsed.refs };
    }
  }
}

/** The invalid_events error of a batch's refused items (the first 100, by position). */
export function invalid(problems: ItemProblem[]): AppError {
  problems.sort((a, b) => a.index - b.index);
  const first = problems[0];
  const msg = first ? `${problems.length} invalid item(s); first at index ${first.index}: ${first.msg}` : 'invalid batch';
  return failure('invalid_events', msg, { errors: problems.slice(0, 100) });
}
