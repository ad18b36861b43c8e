import type { Clock } from '../../lib/time.ts';
import type { FileViewer, ViewerFile } from '../files/service.ts';

/** How long the viewer keeps what it read of a file (its pages and their sizes) before reading it again. */
const FILE_CACHE_MS = 5000;
const FILE_CACHE_SIZE = 1000;

/**
 * What the viewer shows of a file, read for every page and beacon, so kept a few seconds in memory
 * (a new version, or a page rendered meanwhile, shows within FILE_CACHE_MS). A file still rendering
 * is not kept: its next page should show as soon as it is there.
 */
export function createViewerFiles(clock: Clock, files: Pick<FileViewer, 'viewerFile'>) {
  const cache = new Map<string, { until: number; file: Promise<ViewerFile | null> }>();
  return function viewerFile(appId: string, fileId: string): Promise<ViewerFile | null> {
    const key = `${appId}\u0000${fileId}`;
    const now = clock.now();
    const hit = cache.get(key);
    if (hit && hit.until > now) return hit.file;
    if (cache.size >= FILE_CACHE_SIZE) cache.clear();
    const file = files.viewerFile(appId, fileId);
    cache.set(key, { until: now + FILE_CACHE_MS, file });
    void file.then(
      (f) => {
        if (f === null || f.status !== 'ready') cache.delete(key);
      },
      () => cache.delete(key),
    );
    return file;
  };
}

export type ViewerFiles = ReturnType<typeof createViewerFiles>;
