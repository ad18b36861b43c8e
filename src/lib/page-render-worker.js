// @ts-check
/**
 * The page renderer's child process (started by PageRenderer, page-renderer.ts): opens PDFs with
 * pdf.js and images with @napi-rs/canvas, and draws one page at a time into images of the widths
 * asked for; draws the viewer's watermark into a stored page image (`stamp`, watermark.js). It does one operation at a time, as the renderer sends them over the IPC channel; the
 * renderer kills this process when an operation takes too long or the process takes more memory
 * than its budget. Its settings come as JSON in its first argument.
 *
 * Plain JavaScript, so the same file runs from src/ under the tests (the child does not get vitest's
 * TypeScript loader) and from dist/ in the build, which copies it beside the server bundle.
 */
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { Buffer } from 'node:buffer';
import { GlobalFonts, createCanvas, loadImage } from '@napi-rs/canvas';
import { getDocument } from 'pdfjs-dist/legacy/build/pdf.mjs';
import { drawWatermark } from './watermark.js';

/**
 * @typedef {{ maxImagePixels: number; maxSide: number; quality: number; fontDir: string | null }} Settings
 * @typedef {{ kind: 'pdf'; pdf: import('pdfjs-dist/legacy/build/pdf.mjs').PDFDocumentProxy } | { kind: 'image'; image: import('@napi-rs/canvas').Image }} Doc
 * @typedef {{ id: number; op: 'open'; handle: number; kind: 'pdf' | 'image'; data?: Uint8Array; path?: string }
 *   | { id: number; op: 'render'; handle: number; page: number; widths: number[] }
 *   | { id: number; op: 'release'; handle: number }
 *   | { id: number; op: 'stamp'; data: Uint8Array; text: string; format: 'webp' | 'jpeg'; quality: number }} Request
 */

const send = process.send?.bind(process);
if (!send) throw new Error('page-render-worker.js runs as a child process with an IPC channel');
// The renderer gone (the server stopped or crashed): so is this process's purpose.
process.on('disconnect', () => process.exit(0));

/** @type {Settings} */
const settings = JSON.parse(process.argv[2] ?? '{}');

// pdf.js's own data, read from its package: CMaps (the character maps of CJK fonts that are not
// embedded), the standard 14 fonts, and the WebAssembly image decoders.
const pdfjsRoot = path.dirname(createRequire(import.meta.url).resolve('pdfjs-dist/package.json'));
const pdfjsData = {
  cMapUrl: path.join(pdfjsRoot, 'cmaps') + path.sep,
  cMapPacked: true,
  standardFontDataUrl: path.join(pdfjsRoot, 'standard_fonts') + path.sep,
  wasmUrl: path.join(pdfjsRoot, 'wasm') + path.sep,
};

/**
 * Text in a font the PDF does not embed (a CJK font such as STSong-Light, named with a CMap) has no
 * glyph outlines in the file: pdf.js draws it with the canvas's fillText in the font it names, then
 * a generic family. The canvas takes a generic family only alone, and finds a glyph missing from the
 * first family in the next one named: so the generic family is replaced by a concrete one (pdf.js's
 * standard fonts) followed by every family that can fill in: the fonts of FILE_FONT_DIR and the
 * system's CJK fonts.
 */
function fallbackFamilies() {
  const before = new Set(GlobalFonts.families.map((f) => f.family));
  const added = [];
  if (settings.fontDir !== null) {
    GlobalFonts.loadFontsFromDir(settings.fontDir);
    for (const f of GlobalFonts.families) if (!before.has(f.family)) added.push(f.family);
  }
  const cjk = /CJK|Han Sans|Han Serif|Hei|Song|Ming|Kai|Fallback|WenQuanYi|AR PL|YaHei|SimSun|PingFang|Gothic|Mincho|Gulim|Batang/i;
  const system = [...before].filter((family) => cjk.test(family));
  return [...new Set([...added, ...system])];
}

const fonts = path.join(pdfjsRoot, 'standard_fonts');
GlobalFonts.registerFromPath(path.join(fonts, 'LiberationSans-Regular.ttf'), 'PDF Sans');
GlobalFonts.registerFromPath(path.join(fonts, 'FoxitSerif.pfb'), 'PDF Serif');
GlobalFonts.registerFromPath(path.join(fonts, 'FoxitFixed.pfb'), 'PDF Mono');
const fallbacks = fallbackFamilies()
  .map((f) => `"${f.replace(/"/g, '')}"`)
  .join(', ');
/** @type {Record<string, string>} */
const generic = { serif: '"PDF Serif"', 'sans-serif': '"PDF Sans"', monospace: '"PDF Mono"' };
const contextPrototype = Object.getPrototypeOf(createCanvas(1, 1).getContext('2d'));
const fontProperty = Object.getOwnPropertyDescriptor(contextPrototype, 'font');
if (fontProperty?.set && fontProperty.get) {
  const set = fontProperty.set;
  Object.defineProperty(contextPrototype, 'font', {
    ...fontProperty,
    set(/** @type {string} */ value) {
      const rewritten = value.replace(/,\s*(serif|sans-serif|monospace)\s*$/, (_, family) => {
        const concrete = generic[family] ?? '"PDF Sans"';
        return fallbacks === '' ? `, ${concrete}` : `, ${concrete}, ${fallbacks}`;
      });
      set.call(this, rewritten);
    },
  });
}

/** @type {Map<number, Doc>} */
const docs = new Map();

/** @param {number} handle */
function docOf(handle) {
  const doc = docs.get(handle);
  if (doc === undefined) throw Object.assign(new Error('the document is not open'), { name: 'DocumentLost' });
  return doc;
}

/**
 * The pixel size of a page drawn `width` wide: its aspect kept, neither side above maxSide.
 * @param {number} w @param {number} h @param {number} width
 */
function fit(w, h, width) {
  const scale = Math.min(width / w, settings.maxSide / w, settings.maxSide / h);
  return { scale, width: Math.max(1, Math.round(w * scale)), height: Math.max(1, Math.round(h * scale)) };
}

/** @param {Extract<Request, { op: 'open' }>} req */
async function open(req) {
  const given = req.path !== undefined ? await fs.promises.readFile(req.path) : req.data;
  if (given === undefined) throw new Error('no document given');
  // pdf.js takes a plain Uint8Array (not a Buffer, as the IPC channel may hand it over).
  const data = new Uint8Array(given.buffer, given.byteOffset, given.byteLength);
  if (req.kind === 'image') {
    const image = await loadImage(Buffer.from(data.buffer, data.byteOffset, data.byteLength));
    if (!image.width || !image.height) throw Object.assign(new Error('the image has no pixels'), { name: 'InvalidImage' });
    docs.set(req.handle, { kind: 'image', image });
    return { pageCount: 1, encrypted: false };
  }
  const pdf = await getDocument({
    data,
    ...pdfjsData,
    // No code generated from the document (PostScript functions, font programs) is run.
    isEvalSupported: false,
    // Fonts are drawn as paths: there is no FontFace on Node, and no system font is looked up by name.
    disableFontFace: true,
    useSystemFonts: false,
    // An image in a page larger than this (in pixels) is left out rather than decoded.
    maxImageSize: settings.maxImagePixels,
    enableXfa: false,
    isOffscreenCanvasSupported: false,
    isImageDecoderSupported: false,
    verbosity: 0,
  }).promise;
  docs.set(req.handle, { kind: 'pdf', pdf });
  // Encrypted: a password opened it, or the trailer has an /Encrypt dictionary (permissions).
  return { pageCount: pdf.numPages, encrypted: (await pdf.getPermissions()) !== null };
}

/**
 * Draws page `page` at the largest width asked for, then scales that drawing down to the others
 * (one rendering of the page, not one per width). Images come back encoded as WebP, in the order
 * of the widths asked for.
 * @param {Extract<Request, { op: 'render' }>} req
 */
async function render(req) {
  const doc = docOf(req.handle);
  // A page is drawn to each width; an image is never drawn wider than it is.
  const widths = doc.kind === 'image' ? req.widths.map((w) => Math.min(w, doc.image.width)) : req.widths;
  const largest = Math.max(...widths);
  let canvas;
  if (doc.kind === 'pdf') {
    const page = await doc.pdf.getPage(req.page);
    const base = page.getViewport({ scale: 1 });
    const size = fit(base.width, base.height, largest);
    const viewport = page.getViewport({ scale: size.scale });
    canvas = createCanvas(size.width, size.height);
    const context = canvas.getContext('2d');
    context.fillStyle = '#ffffff';
    context.fillRect(0, 0, size.width, size.height);
    await page.render({ canvas: /** @type {never} */ (canvas), canvasContext: /** @type {never} */ (context), viewport }).promise;
    page.cleanup();
  } else {
    const size = fit(doc.image.width, doc.image.height, largest);
    canvas = createCanvas(size.width, size.height);
    const context = canvas.getContext('2d');
    context.fillStyle = '#ffffff';
    context.fillRect(0, 0, size.width, size.height);
    context.imageSmoothingQuality = 'high';
    context.drawImage(doc.image, 0, 0, size.width, size.height);
  }
  const targets = widths.map((width) => {
    if (width === largest) return canvas;
    const size = fit(canvas.width, canvas.height, width);
    const target = createCanvas(size.width, size.height);
    const context = target.getContext('2d');
    context.imageSmoothingQuality = 'high';
    context.drawImage(canvas, 0, 0, size.width, size.height);
    return target;
  });
  // The encodings run on libuv's threads, side by side.
  return Promise.all(
    targets.map(async (target) => {
      const bytes = await target.encode('webp', settings.quality);
      return { width: target.width, height: target.height, bytes: new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength) };
    }),
  );
}

/** @param {Extract<Request, { op: 'release' }>} req */
async function release(req) {
  const doc = docs.get(req.handle);
  docs.delete(req.handle);
  if (doc?.kind === 'pdf') await doc.pdf.destroy();
  return null;
}

/**
 * Draws the watermark's text into an image (a stored page image), encoded as `format` (WebP for the
 * viewer, JPEG for a PDF's page). The image is at most maxSide on a side: it is one the renderer made.
 * @param {Extract<Request, { op: 'stamp' }>} req
 */
async function stamp(req) {
  const image = await loadImage(Buffer.from(req.data.buffer, req.data.byteOffset, req.data.byteLength));
  if (!image.width || !image.height || image.width > settings.maxSide || image.height > settings.maxSide) {
    throw Object.assign(new Error('not a page image'), { name: 'InvalidImage' });
  }
  const canvas = createCanvas(image.width, image.height);
  const context = canvas.getContext('2d');
  context.fillStyle = '#ffffff';
  context.fillRect(0, 0, canvas.width, canvas.height);
  context.drawImage(image, 0, 0);
  drawWatermark(context, canvas.width, canvas.height, req.text);
  const bytes = await canvas.encode(req.format, req.quality);
  return { width: canvas.width, height: canvas.height, bytes: new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength) };
}

process.on('message', (/** @type {Request} */ req) => {
  /** @type {Promise<unknown>} */
  const work = req.op === 'open' ? open(req) : req.op === 'render' ? render(req) : req.op === 'stamp' ? stamp(req) : release(req);
  work.then(
    (result) => send({ id: req.id, ok: true, result }),
    (/** @type {unknown} */ err) => {
      const e = /** @type {{ name?: unknown; message?: unknown }} */ (err ?? {});
      send({ id: req.id, ok: false, error: { name: String(e.name ?? 'Error'), message: String(e.message ?? err) } });
    },
  );
});

// Fonts loaded: the renderer may send work (its clock for an operation starts now).
send({ ready: true, fallbacks });
