import type { FastifyInstance } from 'fastify';
import formbody from '@fastify/formbody';
import multipart from '@fastify/multipart';
import { coerceToSchema } from './coerce.ts';
import { mayHoldUnstorableText, storableText } from './text.ts';
import { receiveFilePart, registerUploadCleanup } from './upload.ts';

/** Form and query values given more than once arrive joined by commas, as the original platform read them. */
function joinRepeated(source: unknown): Record<string, unknown> {
  if (source === null || typeof source !== 'object' || Array.isArray(source)) return {};
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(source as Record<string, unknown>)) {
    out[key] = Array.isArray(value) ? value.map(String).join(',') : value;
  }
  return out;
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
    limits: { files: 0, fields: 200, fieldSize: 1024 * 1024, parts: 200 },
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
    const body = request.body;
    if (Array.isArray(body)) return;
    const isJson = (request.headers['content-type'] ?? '').includes('json');
    // JSON was checked as it was parsed; form fields are checked here.
    const fields =
      isJson && body !== null && typeof body === 'object' ? (body as Record<string, unknown>) : storableText(joinRepeated(body));
    const merged = { ...query, ...fields };
    coerceToSchema(merged, schema?.body);
    request.body = merged;
  });
}
