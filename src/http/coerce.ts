/**
 * Strict coercion of form and query strings to the types a route's schema declares. Ajv's own
 * coercion is switched off because it accepts "0x10", " 5" and "1e309" (as Infinity) as integers;
 * here an integer is only an optional minus sign and digits within the safe range, and anything
 * else is left as it is for the schema to reject with a Bad Request naming the parameter.
 */
interface SchemaNode {
  type?: string | string[];
  properties?: Record<string, SchemaNode>;
  anyOf?: SchemaNode[];
}

const INTEGER_RE = /^-?\d{1,16}$/;
const NUMBER_RE = /^-?\d{1,16}(\.\d{1,16})?$/;

function typesOf(node: SchemaNode): string[] {
  if (node.anyOf) return node.anyOf.flatMap(typesOf);
  if (node.type === undefined) return [];
  return Array.isArray(node.type) ? node.type : [node.type];
}

function coerceValue(value: unknown, types: string[]): unknown {
  if (types.length === 0) return value;
  if (typeof value === 'string') {
    if (types.includes('string')) return value;
    const trimmed = value;
    if (types.includes('integer') && INTEGER_RE.test(trimmed)) {
      const n = Number(trimmed);
      if (Number.isSafeInteger(n)) return n;
    }
    if (types.includes('number') && NUMBER_RE.test(trimmed)) return Number(trimmed);
    if (types.includes('boolean') && (trimmed === 'true' || trimmed === 'false')) return trimmed === 'true';
    if (types.includes('null') && trimmed === '') return null;
    return value;
  }
  if ((typeof value === 'number' || typeof value === 'boolean') && !types.includes(typeof value) && types.includes('string')) {
    if (typeof value === 'number' && types.includes('integer') && Number.isInteger(value)) return value;
    return String(value);
  }
  return value;
}

/** Coerces the top-level properties of `data` in place, following `schema`. */
export function coerceToSchema(data: unknown, schema: unknown): void {
  if (data === null || typeof data !== 'object' || Array.isArray(data)) return;
  const props = (schema as SchemaNode | undefined)?.properties;
  if (!props) return;
  const record = data as Record<string, unknown>;
  for (const [key, node] of Object.entries(props)) {
    if (key in record) record[key] = coerceValue(record[key], typesOf(node));
  }
}
