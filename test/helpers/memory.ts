import v8 from 'node:v8';
import vm from 'node:vm';

v8.setFlagsFromString('--expose-gc');
const gc = vm.runInNewContext('gc') as () => void;

/** Resident memory in MiB, after a full garbage collection so that JS garbage is not counted. */
export function rssMiB(): number {
  gc();
  gc();
  return process.memoryUsage().rss / 2 ** 20;
}
