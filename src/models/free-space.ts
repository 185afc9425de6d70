import { statfs } from 'node:fs/promises';
import path from 'node:path';

/**
 * Bytes this process may still write on the disk that holds `folder` (`bavail × bsize`: the blocks
 * left to unprivileged users). A folder not created yet is measured on its nearest existing parent.
 */
export async function freeBytes(folder: string): Promise<number> {
  for (let at = path.resolve(folder); ; at = path.dirname(at)) {
    try {
      const stats = await statfs(at);
      return Number(stats.bavail) * Number(stats.bsize);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT' || path.dirname(at) === at) throw error;
    }
  }
}
