import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { fsyncFile } from './files.ts';

/**
 * Where uploaded files and their rendered pages are kept, by key: `<appId>/<fileId>/v<version>/…`,
 * letters, digits, `.`, `_` and `-` between slashes. The interface is all the files module knows of
 * storage, so that an S3-compatible store can stand in for the local disk.
 */
export interface FileStorage {
  /**
   * A local directory uploads are received in before they are checked; `putFile` takes files from
   * there. Under the local store it is on the same file system, so that `putFile` is a rename.
   */
  readonly incomingDir: string;
  /** Moves a finished local file (a checked upload) in under `key`; the local file is gone afterwards. */
  putFile(key: string, localPath: string): Promise<void>;
  /** Writes `bytes` under `key`, replacing what was there. */
  put(key: string, bytes: Uint8Array): Promise<void>;
  /** The bytes under `key`, or null when there are none. */
  read(key: string): Promise<Buffer | null>;
  /** A stream of the bytes under `key` and their length, or null when there are none. */
  open(key: string): Promise<{ stream: Readable; size: number } | null>;
  /** Removes every key under `prefix` (`<appId>/<fileId>/v2`); nothing there is not an error. */
  removePrefix(prefix: string): Promise<void>;
}

const KEY = /^[A-Za-z0-9._-]+(\/[A-Za-z0-9._-]+)*$/;

/**
 * The local-disk store: a key is a path under `root` (DATA_DIR/files). Every write goes to a
 * temporary name, is flushed to disk and renamed into place, so a reader never sees half a file
 * and an acknowledged file survives a crash.
 */
export class LocalFileStorage implements FileStorage {
  readonly incomingDir: string;

  constructor(private readonly root: string) {
    this.incomingDir = path.join(root, '.incoming');
  }

  private pathOf(key: string): string {
    if (!KEY.test(key) || key.split('/').some((part) => part === '.' || part === '..')) throw new Error(`invalid storage key ${key}`);
    return path.join(this.root, key);
  }

  async putFile(key: string, localPath: string): Promise<void> {
    const target = this.pathOf(key);
    await fsp.mkdir(path.dirname(target), { recursive: true });
    fsyncFile(localPath);
    await fsp.rename(localPath, target);
  }

  async put(key: string, bytes: Uint8Array): Promise<void> {
    const target = this.pathOf(key);
    await fsp.mkdir(path.dirname(target), { recursive: true });
    const tmp = `${target}.${randomBytes(6).toString('hex')}.tmp`;
    const handle = await fsp.open(tmp, 'w');
    try {
      await handle.writeFile(bytes);
      await handle.sync();
    } finally {
      await handle.close();
    }
    try {
      await fsp.rename(tmp, target);
    } catch (err) {
      await fsp.rm(tmp, { force: true });
      throw err;
    }
  }

  async read(key: string): Promise<Buffer | null> {
    try {
      return await fsp.readFile(this.pathOf(key));
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw err;
    }
  }

  async open(key: string): Promise<{ stream: Readable; size: number } | null> {
    let handle: fsp.FileHandle;
    try {
      handle = await fsp.open(this.pathOf(key), 'r');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw err;
    }
    const { size } = await handle.stat();
    // The stream owns the handle and closes it when it ends or is destroyed.
    return { stream: handle.createReadStream(), size };
  }

  async removePrefix(prefix: string): Promise<void> {
    // A writer still putting a key under the prefix (the render job drawing the version being replaced)
    // can make a directory non-empty again between rm's listing and its rmdir: rm tries again then.
    await fsp.rm(this.pathOf(prefix), { recursive: true, force: true, maxRetries: 5, retryDelay: 20 });
    // Leave no empty project or file directories behind.
    let dir = path.dirname(this.pathOf(prefix));
    while (dir.startsWith(`${this.root}${path.sep}`)) {
      try {
        fs.rmdirSync(dir);
      } catch {
        break;
      }
      dir = path.dirname(dir);
    }
  }
}
