import type { FastifyInstance } from 'fastify';
import formbody from '@fastify/formbody';
import multipart from '@fastify/multipart';
import { coerceToSchema } from './coerce.ts';
import { badRequest, payloadTooLarge } from './errors.ts';
import { mayHoldUnstorableText, storableText } from './text.ts';
import { multipartFieldBytes, multipartLimits, receiveFilePart, registerUploadCleanup } from './upload.ts';

/** Multipart limits of a route that says none: its body limit bounds the whole body anyway. */
const MULTIPART_DEFAULTS = { files: 0, fields: 200, fieldBytes: 1024 * 1024 };

/** A multipart field that reached its route's field size was cut short by the parser: refused, not taken cut. */
function refuseLongFields(body: unknown, maxBytes: number): void {
  if (body === null || typeof body !== 'object') return;
  for (const [name, value] of Object.entries(body as Record<string, unknown>)) {
    for (const v of [value].flat()) {
      if (typeof v === 'string' && v.length > maxBytes / 3 && Buffer.byteLength(v) > maxBytes) {
        throw payloadTooLarge(`The field '${name}' is longer than ${maxBytes} bytes`);
      }
    }
  }
}

declare module 'fastify' {
  interface FastifyContextConfig {
    /** `raw`: the route reads its body as it came (the viewer's beacons: JSON text); its query is still parsed. */
    parameters?: 'raw';
  }
}

/** Form and query values given more than once arrive joined by commas, as the original platform read them. */
function joinRepeated(source: unknown): Record<string, unknown> {
  if (source === null || typeof source !== 'object' || Array.isArray(source)) return {};
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(source as Record<string, unknown>)) {
    out[key] = Array.isArray(value) ? value.map(String).join(',') : value;
  }
  return out;
}

/** A JSON object's members without those set to null: `null` means the parameter is absent. */
function withoutNulls(body: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(body)) if (value !== null) out[key] = value;
  return out;
}

/**
 * A body that was sent but is not parameters would otherwise be read as no parameters at all, and
 * the request would silently change nothing: refused with a Bad Request saying why. Those are a
 * JSON text that is not an object (a string, a number, null), a body of a type only read as text
 * (text/plain), and JSON sent as a form (`{"name":…}` under x-www-form-urlencoded).
 */
function refuseUnreadable(body: unknown, contentType: string): void {
  if (body === undefined) return;
  const type = contentType.split(';')[0]?.trim().toLowerCase() ?? '';
  if (type.includes('json')) {
    if (body === null || typeof body !== 'object') throw badRequest('Unreadable body: a JSON body must be an object of parameters');
    return;
  }
  if (typeof body === 'string') {
    if (body.trim() === '') return;
    throw badRequest(
      `Unreadable body: a ${type || 'body without Content-Type'} is not read; send JSON (application/json), a form (application/x-www-form-urlencoded) or multipart/form-data`,
    );
  }
  if (type === 'application/x-www-form-urlencoded' && body !== null && typeof body === 'object') {
    const keys = Object.keys(body);
    const first = keys[0] ?? '';
    if (keys.length === 1 && /^\s*[[{]/.test(first) && (body as Record<string, unknown>)[first] === '') {
      throw badRequest('Unreadable body: it is JSON but its Content-Type says a form; send it as application/json');
    }
  }
}

/**
 * Parameters of POST/PUT requests may come as x-www-form-urlencoded, multipart/form-data, a JSON
 * object or the query string; they are merged before validation, the body winning (docs/interface.md §2).
 * A JSON body that is not an object (e.g. an array) is left as it is for routes that take one.
 */
export async function registerParameterParsing(app: FastifyInstance): Promise<void> {
  // JSON as Fastify parses it (prototype poisoning refused), then checked for text no database
  // stores as given (text.ts) when an escape in the raw text says it may hold some.
  const parseJson = app.getDefaultJsonParser('error', 'ignore');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, text, done) => {
    void parseJson(request, text as string, (err, value) => {
      if (err) return done(err);
      try {
        done(null, mayHoldUnstorableText(text as string) ? storableText(value) : value);
      } catch (e) {
        done(e as Error);
      }
    });
  });
  await app.register(formbody);
  // No route takes a file part, except those that say so (src/http/upload.ts): there the file is
  // streamed to disk, not held in memory.
  await app.register(multipart, {
    attachFieldsToBody: 'keyValues',
    limits: multipartLimits(MULTIPART_DEFAULTS).limits,
    onFile: receiveFilePart,
  });
  registerUploadCleanup(app);

  app.addHook('preValidation', async (request) => {
    const schema = request.routeOptions.schema;
    const query = storableText(joinRepeated(request.query));
    coerceToSchema(query, schema?.querystring);
    request.query = query;
    storableText(request.params);
    coerceToSchema(request.params, schema?.params);
    if (request.method !== 'POST' && request.method !== 'PUT' && request.method !== 'PATCH') return;
    if (request.routeOptions.config?.parameters === 'raw') return;
    const body = request.body;
    if (Array.isArray(body)) return;
    const contentType = request.headers['content-type'] ?? '';
    const isJson = contentType.includes('json');
    refuseUnreadable(body, contentType);
    if (request.isMultipart()) refuseLongFields(body, multipartFieldBytes(request, MULTIPART_DEFAULTS.fieldBytes));
    // JSON was checked as it was parsed; form fields are checked here. JSON null means absent.
    const fields =
      isJson && body !== null && typeof body === 'object'
        ? withoutNulls(body as Record<string, unknown>)
        : storableText(joinRepeated(body));
    const merged = { ...query, ...fields };
    coerceToSchema(merged, schema?.body);
    request.body = merged;
  });
}
