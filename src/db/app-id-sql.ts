/**
 * Reading statement text for the app_id check (app-id-check.ts): tokens, and scopes (a select and
 * each of its subqueries, each UNION branch) with the table references and names each holds,
 * filled in by app-id-analysis.ts.
 */

export type Tok =
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

export function tokenize(text: string): Tok[] {
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
export interface TableRef {
  readonly table: string;
  readonly column: string;
  /** The table of an INSERT: its columns are not in scope for the statement's names. */
  readonly target: boolean;
  pinned: boolean;
  parent: TableRef;
}

/** What else a FROM names: a global table, a subquery, a function's rows or a WITH query. */
export type OtherItem = 'global' | 'derived';

export class Scope {
  readonly tokens: Tok[] = [];
  readonly refs: TableRef[] = [];
  /** Names in scope (aliases, or table names without an alias), innermost first when looked up. */
  readonly names = new Map<string, TableRef | OtherItem>();
  readonly others: OtherItem[] = [];
  constructor(readonly parent: Scope | null) {}
}

export const isName = (t: Tok | undefined): t is { k: 'id' | 'word'; v: string } =>
  t !== undefined && (t.k === 'id' || (t.k === 'word' && !RESERVED.has(t.v)));
export const isWord = (t: Tok | undefined, ...words: string[]) => t !== undefined && t.k === 'word' && words.includes(t.v);
export const isPunct = (t: Tok | undefined, p: string) => t !== undefined && t.k === 'punct' && t.v === p;
const startsQuery = (t: Tok | undefined) => isWord(t, 'select', 'with', 'values');

/** Splits tokens into scopes: each parenthesised query is a scope of its own, each UNION branch too. */
export function parseScopes(toks: Tok[], from: number, parent: Scope | null, all: Scope[]): { scopes: Scope[]; end: number } {
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
export function withNames(toks: Tok[]): Set<string> {
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
export function skipGroup(toks: Tok[], i: number): number {
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
