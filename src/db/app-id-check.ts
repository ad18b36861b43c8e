/**
 * Every statement over a project's tables names the project (ADR 0018): the tables whose rows
 * belong to one project (TABLE_SCOPE) are each constrained by their project column in every
 * statement that reads or writes them, per table reference: compared with a value, or joined on it
 * to a reference that is. The exception is the few statements that work across projects on purpose
 * (CROSS_PROJECT, tagged in their SQL with `crossProject(key)`); even those join the project tables
 * they touch on the project column (co-located joins), and a tag a statement does not need fails.
 *
 * The check runs where it is switched on (RAPPORT_APP_ID_CHECK=1: the PostgreSQL test runs): the
 * PostgreSQL pools then open their connections as `AppIdCheckedClient`, which reads the text of
 * every statement any part of the server sends (Kysely's builders and transactions, the prepared
 * reader's named and coalesced statements, bulk writes written as text) before it goes out. A
 * statement that breaks the rule is not sent: it fails with AppIdCheckError naming its SQL, and is
 * recorded for the test run's teardown (takeAppIdViolations) and written to stderr (for servers
 * run as child processes). Migrations run exempt (withoutAppIdCheck).
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { type RawBuilder, sql } from 'kysely';
import pg from 'pg';
import type { Database } from './schema.ts';

/** A table of one project's rows, and the column that names the project. */
interface ProjectTable {
  readonly scope: 'project';
  readonly column: 'app_id' | 'id';
}
/** A table that belongs to no project, and why. */
interface GlobalTable {
  readonly scope: 'global';
  readonly why: string;
}
export type TableScope = ProjectTable | GlobalTable;

const PROJECT: ProjectTable = { scope: 'project', column: 'app_id' };

/**
 * Every table of the schema, project or global. A table missing here fails to compile (the
 * Database interface) and fails test/db/app-id-check.test.ts (the migrated schema); a statement
 * naming a table that is not here fails the check.
 */
export const TABLE_SCOPE = {
  // The project itself: its id is the project column every other project table refers to.
  apps: { scope: 'project', column: 'id' },
  members: PROJECT,
  customer_metadata: PROJECT,
  customer_groups: PROJECT,
  customers: PROJECT,
  customer_field_values: PROJECT,
  behaviour_logs: PROJECT,
  behaviour_rollups: PROJECT,
  behaviour_totals: PROJECT,
  calls: PROJECT,
  links: PROJECT,
  link_view_logs: PROJECT,
  link_view_durations: PROJECT,
  clues: PROJECT,
  posts: PROJECT,
  outbox: PROJECT,
  webhooks: PROJECT,
  webhook_deliveries: PROJECT,
  audit_log: PROJECT,
  files: PROJECT,
  file_pages: PROJECT,
  customer_imports: PROJECT,
  customer_import_problems: PROJECT,
  visitors: PROJECT,
  customer_merges: PROJECT,
  site_visitors: PROJECT,
  site_visits: PROJECT,
  site_events: PROJECT,
  site_anonymous_counts: PROJECT,
  link_passcode_failures: PROJECT,
  campaigns: PROJECT,
  campaign_links: PROJECT,
  campaign_recipients: PROJECT,
  mail_suppressions: PROJECT,
  server_secrets: {
    scope: 'global',
    why: "the server's own signing keys (share-link view tokens, campaign tracking tokens), not a project's",
  },
  users: { scope: 'global', why: 'a platform account, member of any number of projects' },
  user_presence: { scope: 'global', why: 'when a platform user was last seen, whatever the project' },
  oauth_clients: { scope: 'global', why: 'the OAuth clients of the platform, not of a project' },
  access_tokens: { scope: 'global', why: "a user's tokens: they reach every project the user is a member of" },
  refresh_tokens: { scope: 'global', why: "a user's tokens: they reach every project the user is a member of" },
  verification_codes: { scope: 'global', why: 'codes sent to a phone or e-mail before any account or project exists' },
  login_failures: { scope: 'global', why: 'log-in throttling per user name and address' },
  event_cursors: { scope: 'global', why: "the relay's positions in the one feed order of every project's events" },
  change_epoch: { scope: 'global', why: "SQLite's per-topic change counters for the in-process caches (migration 007)" },
  rapport_migrations: { scope: 'global', why: 'the migrator: the migrations a database has applied' },
  rapport_migrations_lock: { scope: 'global', why: "the migrator's lock" },
} as const satisfies Record<keyof Database | 'change_epoch' | 'rapport_migrations' | 'rapport_migrations_lock', TableScope>;

/**
 * The statements that work across projects on purpose, by the key their SQL is tagged with
 * (`crossProject(key)`). Each says why it cannot name one project. Keep this list short: a new
 * entry needs a reason of this kind, not convenience.
 */
export const CROSS_PROJECT = {
  'user-projects':
    "A user's own projects and memberships across every project: the project list (my-apps), the membership list, " +
    'and the Sales members of the projects the user created (user info).',
  'record-by-id':
    'The interface addresses some records by id alone, without their project (customer detail and overview, a ' +
    "link's view logs): the statement finds the record, and its project is then checked against the caller's " +
    'memberships. Ids are unique across projects.',
  'ingest-global-ids':
    'Ingestion refuses a record id that another project already uses, and a share token another link has: ' +
    "those are unique across projects, so the lookup has to see every project's rows.",
  'share-token':
    'A shared link is found by its share token alone (the public viewer, its beacons and form know nothing else), and a ' +
    'new token is checked unique: tokens are unique across projects, and the link found names the project every later statement uses.',
  'view-sweep': 'Closing the share-link views that fell silent, in every project: each server sweeps whatever views stopped sending.',
  'site-key':
    "The site snippet's collect calls name only the site key (a public page knows nothing else): the project is found by its key, " +
    'unique across projects, and the project found names every later statement.',
  'site-visit-sweep':
    'Recording the end of site visits that fell silent, in every project: each server sweeps whatever visits stopped sending.',
  'site-anonymous-expiry':
    "Deleting anonymous site visitors' records and visits older than SITE_ANONYMOUS_DAYS, in every project: each server expires what has aged.",
  'site-quota-prune':
    'Deleting the daily counts of anonymous site records (SITE_ANONYMOUS_DAILY_CAP) of days gone by, in every project: each server prunes what has passed.',
  'event-sequencer': "The sequencer gives committed events their positions in ONE feed order over every project's outbox rows.",
  'mail-queue':
    'The campaign senders look for campaigns due to send, and for recipients a stopped process left in sending, in every ' +
    'project: one queue of mail per server; each row found names the project every later statement uses.',
  'customer-import-worker':
    'The import worker looks for customer imports waiting to run (queued, or left running by a stopped process) in every project: one queue of work per server.',
  'file-renderer': 'The page renderer looks for files waiting to be rendered in every project: one queue of work per server.',
  'merge-rewrite':
    "The background job that moves merged customers' history to the customer they were merged into looks for " +
    'merges still to move in every project: one queue of work per server; each move then names its project.',
  'event-relay':
    'The relay walks the outbox and the webhook deliveries of every project: it plans and sends due deliveries, ' +
    'publishes to NATS by feed position, prunes what every sink has, and reports the backlog to metrics.',
} as const;
export type CrossProjectKey = keyof typeof CROSS_PROJECT;

/** The SQL comment that marks a statement as one of CROSS_PROJECT's (add it with a builder's `modifyEnd`). */
export function crossProject(key: CrossProjectKey): RawBuilder<unknown> {
  return sql.raw(`/* cross-project: ${key} */`);
}

const TAG = /\/\*\s*cross-project:\s*([A-Za-z0-9_-]+)\s*\*\//;

// ---------------------------------------------------------------------------------------------
// Reading statement text: tokens, scopes (a select and each of its subqueries), table references
// and the equalities that constrain their project columns.

type Tok =
  | { k: 'id'; v: string } // "quoted identifier"
  | { k: 'word'; v: string } // bare word, lower-cased: a keyword or an identifier
  | { k: 'param' | 'str' | 'num' | 'op' | 'punct'; v: string }
  | { k: 'sub'; scopes: Scope[] };

/** Words that never name a column, table or alias. */
const RESERVED = new Set([
  'all',
  'and',
  'any',
  'as',
  'asc',
  'between',
  'by',
  'case',
  'cross',
  'default',
  'delete',
  'desc',
  'distinct',
  'do',
  'else',
  'end',
  'except',
  'exists',
  'false',
  'fetch',
  'for',
  'from',
  'full',
  'group',
  'having',
  'ilike',
  'in',
  'inner',
  'insert',
  'intersect',
  'into',
  'is',
  'join',
  'lateral',
  'left',
  'like',
  'limit',
  'natural',
  'not',
  'null',
  'offset',
  'on',
  'only',
  'or',
  'order',
  'outer',
  'returning',
  'right',
  'select',
  'set',
  'some',
  'then',
  'true',
  'union',
  'update',
  'using',
  'values',
  'when',
  'where',
  'window',
  'with',
]);

function tokenize(text: string): Tok[] {
  const out: Tok[] = [];
  let i = 0;
  const n = text.length;
  while (i < n) {
    const c = text[i] as string;
    if (/\s/.test(c)) {
      i += 1;
    } else if (c === '-' && text[i + 1] === '-') {
      while (i < n && text[i] !== '\n') i += 1;
    } else if (c === '/' && text[i + 1] === '*') {
      const end = text.indexOf('*/', i + 2);
      i = end < 0 ? n : end + 2;
    } else if (c === '"') {
      let v = '';
      i += 1;
      while (i < n) {
        if (text[i] === '"' && text[i + 1] === '"') {
          v += '"';
          i += 2;
        } else if (text[i] === '"') {
          i += 1;
          break;
        } else v += text[i++];
      }
      out.push({ k: 'id', v });
    } else if (c === "'") {
      i += 1;
      while (i < n) {
        if (text[i] === "'" && text[i + 1] === "'") i += 2;
        else if (text[i] === "'") {
          i += 1;
          break;
        } else i += 1;
      }
      out.push({ k: 'str', v: '' });
    } else if (c === '$' && /[0-9]/.test(text[i + 1] ?? '')) {
      let j = i + 1;
      while (j < n && /[0-9]/.test(text[j] as string)) j += 1;
      out.push({ k: 'param', v: text.slice(i, j) });
      i = j;
    } else if (c === '$') {
      // Dollar quoting: $$…$$ or $tag$…$tag$.
      const m = /^\$[A-Za-z_]*\$/.exec(text.slice(i));
      if (m) {
        const end = text.indexOf(m[0], i + m[0].length);
        i = end < 0 ? n : end + m[0].length;
        out.push({ k: 'str', v: '' });
      } else {
        out.push({ k: 'op', v: '$' });
        i += 1;
      }
    } else if (c === '?') {
      out.push({ k: 'param', v: '?' });
      i += 1;
    } else if (/[0-9]/.test(c)) {
      let j = i;
      while (j < n && /[0-9.eE]/.test(text[j] as string)) j += 1;
      out.push({ k: 'num', v: text.slice(i, j) });
      i = j;
    } else if (/[A-Za-z_]/.test(c)) {
      let j = i;
      while (j < n && /[A-Za-z0-9_$]/.test(text[j] as string)) j += 1;
      out.push({ k: 'word', v: text.slice(i, j).toLowerCase() });
      i = j;
    } else if ('(),.;[]'.includes(c)) {
      out.push({ k: 'punct', v: c });
      i += 1;
    } else {
      let j = i;
      while (j < n && '+-*/<>=~!@#%^&|:'.includes(text[j] as string)) j += 1;
      if (j === i) j = i + 1;
      out.push({ k: 'op', v: text.slice(i, j) });
      i = j;
    }
  }
  return out;
}

/** One reference to a project table in a statement. */
interface TableRef {
  readonly table: string;
  readonly column: string;
  /** The table of an INSERT: its columns are not in scope for the statement's names. */
  readonly target: boolean;
  pinned: boolean;
  parent: TableRef;
}

/** What else a FROM names: a global table, a subquery, a function's rows or a WITH query. */
type OtherItem = 'global' | 'derived';

class Scope {
  readonly tokens: Tok[] = [];
  readonly refs: TableRef[] = [];
  /** Names in scope (aliases, or table names without an alias), innermost first when looked up. */
  readonly names = new Map<string, TableRef | OtherItem>();
  readonly others: OtherItem[] = [];
  constructor(readonly parent: Scope | null) {}
}

const isName = (t: Tok | undefined): t is { k: 'id' | 'word'; v: string } =>
  t !== undefined && (t.k === 'id' || (t.k === 'word' && !RESERVED.has(t.v)));
const isWord = (t: Tok | undefined, ...words: string[]) => t !== undefined && t.k === 'word' && words.includes(t.v);
const isPunct = (t: Tok | undefined, p: string) => t !== undefined && t.k === 'punct' && t.v === p;
const startsQuery = (t: Tok | undefined) => isWord(t, 'select', 'with', 'values');

/** Splits tokens into scopes: each parenthesised query is a scope of its own, each UNION branch too. */
function parseScopes(toks: Tok[], from: number, parent: Scope | null, all: Scope[]): { scopes: Scope[]; end: number } {
  const scopes: Scope[] = [];
  let scope = new Scope(parent);
  scopes.push(scope);
  all.push(scope);
  let depth = 0;
  let i = from;
  for (; i < toks.length; i += 1) {
    const t = toks[i] as Tok;
    if (isPunct(t, '(') && startsQuery(toks[i + 1])) {
      const inner = parseScopes(toks, i + 1, scope, all);
      scope.tokens.push({ k: 'sub', scopes: inner.scopes });
      i = inner.end;
    } else if (isPunct(t, '(')) {
      depth += 1;
      scope.tokens.push(t);
    } else if (isPunct(t, ')')) {
      if (depth === 0) break;
      depth -= 1;
      scope.tokens.push(t);
    } else if (depth === 0 && isWord(t, 'union', 'intersect', 'except')) {
      scope = new Scope(parent);
      scopes.push(scope);
      all.push(scope);
    } else scope.tokens.push(t);
  }
  return { scopes, end: i };
}

/** Names of the statement's WITH queries (`name as (select …)`). */
function withNames(toks: Tok[]): Set<string> {
  const names = new Set<string>();
  for (let i = 0; i + 2 < toks.length; i += 1) {
    if (!isName(toks[i]) || !isWord(toks[i + 1], 'as')) continue;
    let j = i + 2;
    while (isWord(toks[j], 'not', 'materialized')) j += 1;
    if (isPunct(toks[j], '(') && startsQuery(toks[j + 1])) names.add((toks[i] as { v: string }).v);
  }
  return names;
}

/** Index after the parenthesised group that opens at `i`. */
function skipGroup(toks: Tok[], i: number): number {
  let depth = 0;
  for (let j = i; j < toks.length; j += 1) {
    if (isPunct(toks[j], '(')) depth += 1;
    else if (isPunct(toks[j], ')')) {
      depth -= 1;
      if (depth === 0) return j + 1;
    }
  }
  return toks.length;
}

interface Findings {
  unknown: Set<string>;
}

/** Reads the FROM item (or INSERT/UPDATE table) that starts at `i`; returns where it ends. */
function fromItem(scope: Scope, i: number, ctes: Set<string>, found: Findings, target: boolean): number {
  const toks = scope.tokens;
  let j = i;
  while (isWord(toks[j], 'only', 'lateral')) j += 1;
  const t = toks[j];
  let other: OtherItem | null = null;
  let ref: TableRef | null = null;
  let name: string | null = null;
  if (t?.k === 'sub') {
    other = 'derived';
    j += 1;
  } else if (!target && t?.k === 'word' && isName(t) && isPunct(toks[j + 1], '(')) {
    // A function's rows (unnest, json_populate_recordset, json_each).
    other = 'derived';
    j = skipGroup(toks, j + 1);
    if (isWord(toks[j], 'with') && isWord(toks[j + 1], 'ordinality')) j += 2;
  } else if (isName(t)) {
    let schema: string | null = null;
    name = t.v;
    j += 1;
    if (isPunct(toks[j], '.') && isName(toks[j + 1])) {
      schema = name;
      name = (toks[j + 1] as { v: string }).v;
      j += 2;
    }
    const scoped = (TABLE_SCOPE as Record<string, TableScope>)[name];
    if (schema === 'pg_catalog' || schema === 'information_schema' || name.startsWith('pg_') || name.startsWith('sqlite_')) {
      other = 'global';
    } else if (schema === null && ctes.has(name)) {
      other = 'derived';
    } else if (scoped === undefined) {
      found.unknown.add(name);
      other = 'global';
    } else if (scoped.scope === 'global') {
      other = 'global';
    } else {
      const r: TableRef = { table: name, column: scoped.column, target, pinned: false, parent: null as unknown as TableRef };
      r.parent = r;
      ref = r;
      scope.refs.push(r);
    }
  } else {
    return j;
  }
  // Alias: `as x`, or a bare name that is not a keyword; then maybe a column list.
  let alias: string | null = null;
  if (isWord(toks[j], 'as') && isName(toks[j + 1])) {
    alias = (toks[j + 1] as { v: string }).v;
    j += 2;
  } else if (isName(toks[j])) {
    alias = (toks[j] as { v: string }).v;
    j += 1;
  }
  const entry = ref ?? other ?? 'derived';
  if (alias !== null) scope.names.set(alias, entry);
  else if (name !== null) scope.names.set(name, entry);
  if (other !== null) scope.others.push(other);
  if (isPunct(toks[j], '(')) {
    const end = skipGroup(toks, j);
    if (ref !== null && target) {
      // An INSERT's column list: naming the project column is what pins the new rows.
      for (let k = j + 1; k < end - 1; k += 1) {
        const c = toks[k];
        if ((c?.k === 'id' || c?.k === 'word') && c.v === ref.column) ref.pinned = true;
      }
    }
    j = end;
  }
  return j;
}

/** A column named in an expression: qualifier (alias or table) and column. */
interface ColumnName {
  qual: string | null;
  col: string;
}

/** The column that ends at `j`, or null when that is not a plain column reference. */
function columnEndingAt(toks: Tok[], j: number): ColumnName | null {
  const t = toks[j];
  if (!isName(t)) return null;
  if (toks[j - 1]?.k === 'op' && (toks[j - 1] as { v: string }).v === '::') return null;
  if (isPunct(toks[j - 1], '.')) {
    const q = toks[j - 2];
    return isName(q) ? { qual: q.v, col: t.v } : null;
  }
  return { qual: null, col: t.v };
}

/** The column that starts at `j` (after a unary plus), or null for anything else (a value). */
function columnStartingAt(toks: Tok[], j: number): ColumnName | null {
  let k = j;
  if (toks[k]?.k === 'op' && (toks[k] as { v: string }).v === '+') k += 1;
  const t = toks[k];
  if (!isName(t) || isPunct(toks[k + 1], '(')) return null;
  if (isPunct(toks[k + 1], '.')) {
    const c = toks[k + 2];
    return isName(c) ? { qual: t.v, col: c.v } : null;
  }
  return { qual: null, col: t.v };
}

type Resolved = { kind: 'key'; ref: TableRef } | { kind: 'column' } | { kind: 'outside' };

/** What a column name refers to, seen from `scope`. */
function resolve(scope: Scope, name: ColumnName): Resolved {
  if (name.qual !== null) {
    for (let s: Scope | null = scope; s !== null; s = s.parent) {
      const entry = s.names.get(name.qual);
      if (entry === undefined) continue;
      if (typeof entry === 'string') return entry === 'global' ? { kind: 'column' } : { kind: 'outside' };
      return entry.column === name.col ? { kind: 'key', ref: entry } : { kind: 'column' };
    }
    return { kind: 'outside' };
  }
  // Unqualified: the innermost scope with a FROM decides.
  for (let s: Scope | null = scope; s !== null; s = s.parent) {
    const refs = s.refs.filter((r) => !r.target);
    if (refs.length === 0 && s.others.length === 0) continue;
    const keyed = refs.filter((r) => r.column === name.col);
    if (name.col === 'app_id') {
      // Global tables have no app_id; a subquery's rows may.
      const derived = s.others.filter((o) => o === 'derived').length;
      if (keyed.length === 1 && derived === 0) return { kind: 'key', ref: keyed[0] as TableRef };
      if (keyed.length === 1 && refs.length === 1) return { kind: 'key', ref: keyed[0] as TableRef };
      return { kind: 'outside' };
    }
    if (keyed.length === 1 && refs.length + s.others.length === 1) return { kind: 'key', ref: keyed[0] as TableRef };
    return { kind: refs.length + s.others.length === 1 ? 'column' : 'outside' };
  }
  return { kind: 'outside' };
}

function root(r: TableRef): TableRef {
  let x = r;
  while (x.parent !== x) {
    x.parent = x.parent.parent;
    x = x.parent;
  }
  return x;
}

function join(a: TableRef, b: TableRef): void {
  const ra = root(a);
  const rb = root(b);
  if (ra === rb) return;
  rb.parent = ra;
  ra.pinned ||= rb.pinned;
}

/** Project columns compared with a value (pinned) or with each other (joined), in one scope. */
function constraints(scope: Scope): void {
  const toks = scope.tokens;
  let depth = 0;
  let inSet = false;
  for (let i = 0; i < toks.length; i += 1) {
    const t = toks[i] as Tok;
    if (isPunct(t, '(')) depth += 1;
    else if (isPunct(t, ')')) depth -= 1;
    if (depth === 0 && t.k === 'word') {
      if (t.v === 'set') inSet = true;
      else if (t.v === 'where' || t.v === 'from' || t.v === 'returning') inSet = false;
    }
    if (inSet) continue;
    if (t.k === 'op' && t.v === '=') {
      const left = columnEndingAt(toks, i - 1);
      const right = columnStartingAt(toks, i + 1);
      const l: Resolved = left ? resolve(scope, left) : { kind: 'outside' };
      const r: Resolved = right ? resolve(scope, right) : { kind: 'outside' };
      if (l.kind === 'key' && r.kind === 'key') join(l.ref, r.ref);
      else if (l.kind === 'key' && r.kind === 'outside') root(l.ref).pinned = true;
      else if (r.kind === 'key' && l.kind === 'outside') root(r.ref).pinned = true;
    } else if (isWord(t, 'in') && !isWord(toks[i - 1], 'not')) {
      const left = columnEndingAt(toks, i - 1);
      const l = left ? resolve(scope, left) : null;
      if (l?.kind === 'key') root(l.ref).pinned = true;
    }
  }
}

/** Table references of one scope. */
function references(scope: Scope, ctes: Set<string>, found: Findings): void {
  const toks = scope.tokens;
  let depth = 0;
  let fromList = false;
  for (let i = 0; i < toks.length; i += 1) {
    const t = toks[i] as Tok;
    if (isPunct(t, '(')) depth += 1;
    else if (isPunct(t, ')')) depth -= 1;
    if (depth !== 0) continue;
    if (isWord(t, 'from') && !isWord(toks[i - 1], 'distinct')) {
      fromList = true;
      fromItem(scope, i + 1, ctes, found, false);
    } else if (isWord(t, 'join')) {
      fromItem(scope, i + 1, ctes, found, false);
    } else if (isPunct(t, ',') && fromList) {
      fromItem(scope, i + 1, ctes, found, false);
    } else if (isWord(t, 'using') && !isPunct(toks[i + 1], '(')) {
      fromList = true;
      fromItem(scope, i + 1, ctes, found, false);
    } else if (isWord(t, 'update') && !isWord(toks[i - 1], 'for', 'do', 'key', 'no')) {
      fromItem(scope, i + 1, ctes, found, false);
    } else if (isWord(t, 'into')) {
      fromItem(scope, i + 1, ctes, found, true);
    } else if (isWord(t, 'where', 'group', 'order', 'limit', 'offset', 'having', 'window', 'returning', 'set', 'values', 'select', 'on')) {
      if (!isWord(t, 'on')) fromList = false;
    }
  }
}

/** Statements outside the rule: schema changes (migrations), transaction and session control. */
const EXEMPT_FIRST_WORDS = new Set([
  'create',
  'alter',
  'drop',
  'comment',
  'grant',
  'revoke',
  'truncate',
  'vacuum',
  'analyze',
  'reindex',
  'cluster',
  'begin',
  'start',
  'commit',
  'end',
  'rollback',
  'savepoint',
  'release',
  'set',
  'reset',
  'show',
  'listen',
  'unlisten',
  'notify',
  'lock',
  'deallocate',
  'discard',
  'explain',
  'pragma',
]);

/** What the check finds in one statement. */
export interface StatementFindings {
  /** Project tables referenced without their project column constrained (to a value, or through a join to one that is). */
  readonly unconstrained: readonly string[];
  /** How many groups those references form, joined to each other on their project columns. */
  readonly unconstrainedGroups: number;
  /** Tables TABLE_SCOPE does not classify. */
  readonly unknown: readonly string[];
  /** The CROSS_PROJECT key the statement is tagged with, if any. */
  readonly crossProject: string | null;
}

/** Reads one statement's text (see the module comment). */
export function analyzeStatement(text: string): StatementFindings {
  const tag = TAG.exec(text)?.[1] ?? null;
  const toks = tokenize(text);
  const first = toks.find((t) => !isPunct(t, '('));
  if (first === undefined || (first.k === 'word' && EXEMPT_FIRST_WORDS.has(first.v))) {
    return { unconstrained: [], unconstrainedGroups: 0, unknown: [], crossProject: tag };
  }
  const ctes = withNames(toks);
  const scopes: Scope[] = [];
  parseScopes(toks, 0, null, scopes);
  const found: Findings = { unknown: new Set() };
  for (const s of scopes) references(s, ctes, found);
  for (const s of scopes) constraints(s);
  const unconstrained = new Set<string>();
  const groups = new Set<TableRef>();
  for (const s of scopes) {
    for (const r of s.refs) {
      if (root(r).pinned) continue;
      unconstrained.add(r.table);
      groups.add(root(r));
    }
  }
  return {
    unconstrained: [...unconstrained].sort(),
    unconstrainedGroups: groups.size,
    unknown: [...found.unknown].sort(),
    crossProject: tag,
  };
}

/** Why a statement breaks the rule, or null when it keeps it. */
export function appIdViolation(text: string): string | null {
  const f = analyzeStatement(text);
  if (f.unknown.length > 0) return `a table TABLE_SCOPE does not classify (${f.unknown.join(', ')})`;
  if (f.crossProject !== null) {
    if (!(f.crossProject in CROSS_PROJECT)) return `an unknown cross-project key "${f.crossProject}" (not in CROSS_PROJECT)`;
    // A tag on a statement that names its project anyway would let the list grow stale.
    if (f.unconstrained.length === 0) return `a cross-project tag "${f.crossProject}" on a statement that names its project`;
    // Across projects, but each row with its own project's rows: the project tables it does not
    // pin to a value must all be joined on their project columns (co-located joins).
    if (f.unconstrainedGroups > 1)
      return `project tables (${f.unconstrained.join(', ')}) not joined on app_id in a cross-project statement`;
    return null;
  }
  if (f.unconstrained.length === 0) return null;
  return `project table(s) ${f.unconstrained.join(', ')} without app_id`;
}

// ---------------------------------------------------------------------------------------------
// The check at run time.

/** Thrown instead of running a statement that breaks the rule. */
export class AppIdCheckError extends Error {
  constructor(
    readonly reason: string,
    readonly statement: string,
  ) {
    super(`app_id check: ${reason} in: ${statement}`);
    this.name = 'AppIdCheckError';
  }
}

const exempt = new AsyncLocalStorage<true>();
/**
 * Whether a connection in this process checks statements. Until one does, the exemption is not
 * recorded at all: an AsyncLocalStorage, once run, turns on Node's promise hooks for the rest of the
 * process, and every promise of every request pays for them.
 */
let checking = false;

/** Called by the database layer when it opens connections that check their statements. */
export function startCheckingAppIds(): void {
  checking = true;
}

/** Runs `work` with its statements exempt from the check (migrations; tests reading storage directly). */
export function withoutAppIdCheck<T>(work: () => T): T {
  return checking ? exempt.run(true, work) : work();
}

const recorded: string[] = [];

/** The violations seen so far in this process, forgotten once taken (a test run's teardown fails on them). */
export function takeAppIdViolations(): string[] {
  return recorded.splice(0);
}

/** Verdicts per statement text: the same texts come back all the time (prepared statements). */
const verdicts = new Map<string, string | null>();

/** The check of one statement about to be sent: the error to fail it with, or null. */
export function checkStatement(text: string): AppIdCheckError | null {
  if (exempt.getStore()) return null;
  let reason = verdicts.get(text);
  if (reason === undefined) {
    reason = appIdViolation(text);
    if (verdicts.size >= 10_000) verdicts.clear();
    verdicts.set(text, reason);
  }
  if (reason === null) return null;
  const error = new AppIdCheckError(reason, text);
  recorded.push(error.message);
  process.stderr.write(`${error.message}\n`);
  return error;
}

type QueryArgs = [unknown, ...unknown[]];

/**
 * A node-postgres client that checks every statement before sending it (pg.Pool's `Client`
 * option): a statement that breaks the rule fails, through its callback or its promise, and is
 * never sent.
 */
export class AppIdCheckedClient extends pg.Client {
  // node-postgres' query has many overloads; this one passes all of them through.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  override query(...args: any[]): any {
    const [config] = args as QueryArgs;
    const text = typeof config === 'string' ? config : (config as { text?: unknown } | null)?.text;
    const error = typeof text === 'string' ? checkStatement(text) : null;
    if (error === null) return (super.query as (...a: unknown[]) => unknown).apply(this, args);
    const callback = args.find((a): a is (e: Error) => void => typeof a === 'function');
    if (callback) {
      process.nextTick(callback, error);
      return undefined;
    }
    return Promise.reject(error);
  }
}
