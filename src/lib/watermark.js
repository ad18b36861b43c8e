// @ts-check
/**
 * The dynamic watermark drawn into a page image (docs/links.md, "Watermarks and deterrence"; ADR
 * 0044): one line of text (who reads, when, from where) repeated over the whole image in diagonal
 * rows, dark and semi-transparent with a light edge, so that it reads on light and dark parts of a
 * page alike and the page still reads through it.
 *
 * Plain JavaScript, for the page renderer's child (page-render-worker.js, which draws it) and the
 * tests (which draw the expected image with it): the same function and font give the same pixels.
 * Its text is watermark-text.ts's (the server's process never loads the canvas).
 * The font is pdf.js's Liberation Sans (pdfjs-dist's `standard_fonts/`, a dependency): it is there on
 * every machine the server runs on, whatever fonts the system has; text it has no glyph for (a CJK
 * e-mail address) falls back to the system's CJK fonts when there are any.
 */
import { createRequire } from 'node:module';
import path from 'node:path';
import { GlobalFonts } from '@napi-rs/canvas';

/** The family the watermark's font is registered under. */
export const WATERMARK_FAMILY = 'Rapport Watermark';

/** The rows' angle: rising 30° from left to right. */
const ANGLE = -Math.PI / 6;

/** @type {string | null} */
let fontList = null;

/** Registers the font once (per process) and answers the font families to draw with. */
function families() {
  if (fontList !== null) return fontList;
  const pdfjsRoot = path.dirname(createRequire(import.meta.url).resolve('pdfjs-dist/package.json'));
  if (!GlobalFonts.has(WATERMARK_FAMILY)) {
    GlobalFonts.registerFromPath(path.join(pdfjsRoot, 'standard_fonts', 'LiberationSans-Regular.ttf'), WATERMARK_FAMILY);
  }
  const cjk = /CJK|Han Sans|WenQuanYi|Droid Sans Fallback|AR PL/i;
  const fallbacks = GlobalFonts.families.map((f) => f.family).filter((f) => cjk.test(f));
  fontList = [WATERMARK_FAMILY, ...new Set(fallbacks)].map((f) => `"${f.replace(/"/g, '')}"`).join(', ');
  return fontList;
}

/**
 * Draws `text` over the whole `width` × `height` image the context holds: rows at 30°, each row's
 * copies a text's width apart, every other row shifted by half a copy. The size follows the
 * image's width (40 px on a 1600 px page, 19 px on a 750 px one).
 * @param {import('@napi-rs/canvas').SKRSContext2D} context
 * @param {number} width
 * @param {number} height
 * @param {string} text
 */
export function drawWatermark(context, width, height, text) {
  const size = Math.max(12, Math.min(64, Math.round(width / 40)));
  context.save();
  context.font = `${size}px ${families()}`;
  context.textBaseline = 'middle';
  context.lineJoin = 'round';
  context.lineWidth = Math.max(1, size / 10);
  context.strokeStyle = 'rgba(255, 255, 255, 0.35)';
  context.fillStyle = 'rgba(30, 30, 30, 0.22)';
  const step = context.measureText(text).width + size * 3;
  const rowStep = size * 5;
  // Rows around the centre, far enough out to cover the corners once turned.
  const reach = Math.hypot(width, height) / 2 + step;
  context.translate(width / 2, height / 2);
  context.rotate(ANGLE);
  let row = 0;
  for (let y = -reach; y <= reach; y += rowStep, row += 1) {
    for (let x = -reach - (row % 2) * (step / 2); x <= reach; x += step) {
      context.strokeText(text, x, y);
      context.fillText(text, x, y);
    }
  }
  context.restore();
}
