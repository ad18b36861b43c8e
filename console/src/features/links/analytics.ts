/**
 * What the link's reading analytics show, computed from the API's figures, pure: the per-page chart
 * (its bars, thumbnails, words and the drop-off page marked) and the words of a version and a reader.
 */
import type { ChartImage, PageBarsData } from '../../shared/ui/LazyChart.tsx';

/** The figures of one version of the link's file, as the API answers them. */
export interface VersionLike {
  fileId: string;
  version: number;
  current: boolean;
  views: number;
  pages: { page: number; views: number; avgSeconds: number; reach: number }[];
  dropOffPage: { page: number; views: number; share: number } | null;
}

/** A share (0–1) as a whole percentage. */
export const percent = (share: number): number => Math.round(share * 100);

/** The words the chart needs, in the language shown. */
export interface ChartWords {
  page: (page: number) => string;
  /** A bar's text: the time on the page and its reach. */
  bar: (time: string, reach: number) => string;
  unread: string;
  dropOff: string;
  /** The value axis's labels, `{value}` and the unit of seconds. */
  axis: string;
  tooltip: (page: number, time: string, views: number, total: number) => string;
  /** A duration in seconds, for a person. */
  time: (seconds: number) => string;
}

/**
 * The per-page chart of a version: every page (the unread ones at 0), the average seconds on each,
 * the page's image beside it when there is one, the drop-off page marked.
 */
export function pageChart(v: VersionLike, images: readonly (ChartImage | null | undefined)[], words: ChartWords): PageBarsData {
  return {
    categories: v.pages.map((p) => words.page(p.page)),
    values: v.pages.map((p) => p.avgSeconds),
    images: v.pages.map((_, i) => images[i] ?? null),
    texts: v.pages.map((p) => (p.views === 0 ? words.unread : words.bar(words.time(p.avgSeconds), percent(p.reach)))),
    tooltips: v.pages.map((p) => words.tooltip(p.page, words.time(p.avgSeconds), p.views, v.views)),
    marked: v.dropOffPage === null ? null : { index: v.dropOffPage.page - 1, text: words.dropOff },
    axis: words.axis,
  };
}

/** A version's key, for a select's value. */
export const versionValue = (v: { fileId: string; version: number }): string => `${v.version}:${v.fileId}`;

/** The version a select's value names, among those listed. */
export function versionOf<V extends { fileId: string; version: number }>(versions: readonly V[], value: string | undefined): V | undefined {
  return versions.find((v) => versionValue(v) === value);
}

/** A short, stable token of an anonymous reader's id (its visitor cookie), to tell readers apart. */
export const readerTag = (viewerId: string): string => viewerId.replace(/[^A-Za-z0-9]/g, '').slice(0, 6);
