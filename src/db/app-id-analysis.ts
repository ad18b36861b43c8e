/**
 * The app_id check of one statement's text (ADR 0018; app-id-check.ts checks each statement sent):
 * its table references, the equalities that constrain their project columns, and the verdict.
 */
import {
  type OtherItem,
  type Scope,
  type TableRef,
  type Tok,
  isName,
  isPunct,
  isWord,
  parseScopes,
  skipGroup,
  tokenize,
  withNames,
} from './app-id-sql.ts';
import { CROSS_PROJECT, CROSS_PROJECT_TAG, TABLE_SCOPE, type TableScope } from './app-id-tables.ts';

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
  const tag = CROSS_PROJECT_TAG.exec(text)?.[1] ?? null;
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
