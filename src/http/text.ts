/**
 * Text that every database stores as given. PostgreSQL cannot hold U+0000 in text (the statement
 * failed: a 500), and a UTF-16 surrogate without its pair has no UTF-8 form (PostgreSQL refused it
 * in JSON, SQLite stored three replacement characters). Requests are checked once, at the edge:
 * a NUL character is refused as malformed input naming where it is (the route's error style: the
 * envelope's Bad Request, or OAuth's invalid_request); a lone surrogate becomes U+FFFD, as the JSON
 * and URL decoders already do for malformed UTF-8 bytes.
 */

/** Malformed input: the error handler answers it in the route's style, like malformed JSON. */
export class UnstorableTextError extends Error {
  readonly statusCode = 400;
}

// String has isWellFormed/toWellFormed from Node 20 (ES2024); the project's lib is ES2023.
type WellFormed = { isWellFormed(): boolean; toWellFormed(): string };

/**
 * A JSON text whose strings may hold U+0000 or a surrogate: only such escapes put them there (raw
 * control characters are not valid JSON, malformed bytes are already decoded as U+FFFD). The match
 * may be a false alarm (an escaped backslash before "u0000"); the walk then finds nothing.
 */
const SUSPECT_ESCAPE = /\\u(?:0000|d[89a-f])/i;

export function mayHoldUnstorableText(json: string): boolean {
  return SUSPECT_ESCAPE.test(json);
}

function clean(s: string, path: string): string {
  if (s.includes('\u0000')) throw new UnstorableTextError(`Text may not contain the NUL character (U+0000): ${path || 'the value'}`);
  return (s as unknown as WellFormed).isWellFormed() ? s : (s as unknown as WellFormed).toWellFormed();
}

const step = (path: string, key: string | number) => (typeof key === 'number' ? `${path}[${key}]` : path ? `${path}.${key}` : key);

/**
 * Checks every string of a parsed value (keys included), in place; returns the value, or the
 * cleaned string when the value is one. Iterative, so a deeply nested body cannot overflow the stack.
 */
export function storableText<T>(value: T, root = ''): T {
  if (typeof value === 'string') return clean(value, root) as T;
  if (value === null || typeof value !== 'object') return value;
  const stack: { node: Record<string, unknown> | unknown[]; path: string }[] = [{ node: value as Record<string, unknown>, path: root }];
  for (let top = stack.pop(); top !== undefined; top = stack.pop()) {
    const { node, path } = top;
    if (Array.isArray(node)) {
      for (let i = 0; i < node.length; i += 1) {
        const v = node[i];
        if (typeof v === 'string') node[i] = clean(v, step(path, i));
        else if (v !== null && typeof v === 'object') stack.push({ node: v as Record<string, unknown>, path: step(path, i) });
      }
      continue;
    }
    for (const key of Object.keys(node)) {
      const v = node[key];
      const cleanKey = clean(key, step(path, key));
      if (cleanKey !== key) {
        delete node[key];
        node[cleanKey] = v;
      }
      if (typeof v === 'string') node[cleanKey] = clean(v, step(path, cleanKey));
      else if (v !== null && typeof v === 'object') stack.push({ node: v as Record<string, unknown>, path: step(path, cleanKey) });
    }
  }
  return value;
}
