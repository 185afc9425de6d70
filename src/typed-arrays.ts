/** The typed arrays the indexes grow: their tables are sized once and doubled, never pushed to. */
export type GrowableArray = Int32Array | Uint8Array | Uint16Array | Uint32Array | Float32Array | Float64Array;

/** `from` if it holds `size` items already, else a copy of it `size` long (the rest zeros). */
export function grown<T extends GrowableArray>(from: T, size: number, make: new (n: number) => T): T {
  if (from.length >= size) return from;
  const to = new make(size);
  to.set(from);
  return to;
}
