import { open } from 'node:fs/promises';
import { EndOfFileError, FileReader } from './file-reader.js';

/** A GGUF file that llama.cpp must not be handed: `field` names what is wrong in it. */
export class GgufFileError extends Error {
  override readonly name = 'GgufFileError';
  constructor(
    readonly file: string,
    /** The header field or tensor at fault, e.g. `llama.attention.head_count`, `tensor output.weight`. */
    readonly field: string,
    problem: string,
  ) {
    super(`${file} is not a model llama.cpp can load: ${problem}`);
  }
}

// GGUF metadata value types, and the byte size of the fixed-size ones.
const STRING = 8;
const ARRAY = 9;
const SCALAR_BYTES: Readonly<Record<number, number>> = { 0: 1, 1: 1, 2: 2, 3: 2, 4: 4, 5: 4, 6: 4, 7: 1, 10: 8, 11: 8, 12: 8 };
const INTEGER_TYPES: ReadonlySet<number> = new Set([0, 1, 2, 3, 4, 5, 10, 11]);
const MAX_DIMS = 4; // GGML_MAX_DIMS
const DEFAULT_ALIGNMENT = 32;

/**
 * `[elements per block, bytes per block]` of ggml's tensor types, as llama.cpp's own tables give
 * them. A type missing here (removed or newer) is left to llama.cpp to judge.
 */
const GGML_TYPE_SIZES: Readonly<Record<number, readonly [number, number]>> = {
  0: [1, 4], // F32
  1: [1, 2], // F16
  2: [32, 18], // Q4_0
  3: [32, 20], // Q4_1
  6: [32, 22], // Q5_0
  7: [32, 24], // Q5_1
  8: [32, 34], // Q8_0
  9: [32, 36], // Q8_1
  10: [256, 84], // Q2_K
  11: [256, 110], // Q3_K
  12: [256, 144], // Q4_K
  13: [256, 176], // Q5_K
  14: [256, 210], // Q6_K
  15: [256, 292], // Q8_K
  16: [256, 66], // IQ2_XXS
  17: [256, 74], // IQ2_XS
  18: [256, 98], // IQ3_XXS
  19: [256, 50], // IQ1_S
  20: [32, 18], // IQ4_NL
  21: [256, 110], // IQ3_S
  22: [256, 82], // IQ2_S
  23: [256, 136], // IQ4_XS
  24: [1, 1], // I8
  25: [1, 2], // I16
  26: [1, 4], // I32
  27: [1, 8], // I64
  28: [1, 8], // F64
  29: [256, 56], // IQ1_M
  30: [1, 2], // BF16
  34: [256, 54], // TQ1_0
  35: [256, 66], // TQ2_0
  39: [32, 17], // MXFP4
  40: [64, 36], // NVFP4
  41: [128, 18], // Q1_0
  42: [64, 18], // Q2_0
};

/**
 * Header fields llama.cpp divides by or sizes tensors with: 0 there trips a native assert (or a
 * division by zero) that aborts the process loading the model. `{arch}` is the model's architecture.
 */
const POSITIVE_FIELDS = [
  '{arch}.context_length',
  '{arch}.embedding_length',
  '{arch}.block_count',
  '{arch}.attention.head_count',
  '{arch}.attention.head_count_kv',
];

/**
 * Checks what can be checked cheaply before llama.cpp reads a GGUF file: the magic and version,
 * counts and lengths that fit in the file, the header fields that must be positive, tensors with 1
 * to 4 dimensions none of them 0, and tensor data that lies inside the file (a file truncated
 * mid-tensor). Reads the header only, never the weights. Throws a {@link GgufFileError} naming the
 * field at fault.
 */
export async function checkGgufFile(file: string): Promise<void> {
  const handle = await open(file, 'r');
  try {
    const size = (await handle.stat()).size;
    const reader = new FileReader(handle, size);
    await checkHeader(reader, file, size).catch((error: unknown) => {
      if (!(error instanceof EndOfFileError)) throw error;
      throw new GgufFileError(file, reader.label, `${reader.label} runs past the end of the file.`);
    });
  } finally {
    await handle.close();
  }
}

async function checkHeader(reader: FileReader, file: string, size: number): Promise<void> {
  const fail = (field: string, problem: string): never => {
    throw new GgufFileError(file, field, problem);
  };
  if (size < 24 || (await reader.bytes(4)).toString('latin1') !== 'GGUF') fail('magic', 'it does not start with "GGUF".');
  const version = await reader.u32();
  if (version !== 2 && version !== 3) fail('version', `GGUF version ${version} is not supported (2 or 3 is).`);
  const tensorCount = await reader.u64();
  const fieldCount = await reader.u64();
  // Each field takes at least 12 bytes and each tensor 24: a count past that cannot be real.
  if (tensorCount * 24 > size) fail('tensor_count', `it says ${tensorCount} tensors, more than its ${size} bytes can hold.`);
  if (fieldCount * 12 > size) fail('metadata_kv_count', `it says ${fieldCount} header fields, more than its ${size} bytes can hold.`);

  const integers = new Map<string, number | number[]>();
  let architecture: string | undefined;
  for (let i = 0; i < fieldCount; i++) {
    reader.label = `header field ${i}`;
    const key = await readString(reader, size, fail, reader.label);
    reader.label = key;
    const type = await reader.u32();
    if (key === 'general.architecture' && type === STRING) architecture = await readString(reader, size, fail, key);
    else if (INTEGER_TYPES.has(type)) integers.set(key, await reader.integer(type));
    else if (type === ARRAY) {
      const itemType = await reader.u32();
      const count = await reader.u64();
      if (count * (SCALAR_BYTES[itemType] ?? 8) > size) fail(key, `${key}, an array of ${count} items, runs past the end of the file.`);
      if (INTEGER_TYPES.has(itemType) && count <= MAX_DIMS * 1024) {
        const items: number[] = [];
        for (let j = 0; j < count; j++) items.push(await reader.integer(itemType));
        integers.set(key, items);
      } else await skipValues(reader, itemType, count, size, fail, key);
    } else await skipValues(reader, type, 1, size, fail, key);
  }

  for (const template of POSITIVE_FIELDS) {
    const field = template.replace('{arch}', architecture ?? '');
    const value = integers.get(field);
    if (value === undefined) continue;
    // Hybrid models give some fields per layer, where 0 marks a layer without attention.
    if (Array.isArray(value) ? !value.some((item) => item >= 1) : value < 1) {
      fail(field, `${field} is ${Array.isArray(value) ? '0 in every layer' : value}; it must be at least 1.`);
    }
  }
  const alignment = integers.get('general.alignment') ?? DEFAULT_ALIGNMENT;
  if (typeof alignment !== 'number' || alignment < 1 || (alignment & (alignment - 1)) !== 0)
    fail('general.alignment', `general.alignment is ${String(alignment)}; it must be a power of two.`);

  const tensors: { name: string; end: number }[] = [];
  for (let i = 0; i < tensorCount; i++) {
    reader.label = `tensor ${i}`;
    const name = await readString(reader, size, fail, reader.label);
    const field = `tensor ${name}`;
    reader.label = field;
    const dims = await reader.u32();
    if (dims < 1 || dims > MAX_DIMS) fail(field, `tensor ${name} has ${dims} dimensions (1 to ${MAX_DIMS} are possible).`);
    const shape: number[] = [];
    for (let d = 0; d < dims; d++) shape.push(await reader.u64());
    if (shape.some((dim) => dim < 1)) fail(field, `tensor ${name} has a dimension of 0 (${shape.join(' × ')}).`);
    const type = await reader.u32();
    const offset = await reader.u64();
    if (offset % (alignment as number) !== 0) fail(field, `tensor ${name}'s data is not aligned to ${alignment} bytes.`);
    const sizes = GGML_TYPE_SIZES[type];
    if (!sizes) continue;
    const [blockElements, blockBytes] = sizes;
    if (shape[0]! % blockElements !== 0)
      fail(field, `tensor ${name}'s rows of ${shape[0]} are not whole blocks of ${blockElements} for its type.`);
    const elements = shape.reduce((product, dim) => product * dim, 1);
    tensors.push({ name, end: offset + (elements / blockElements) * blockBytes });
  }
  const dataStart = Math.ceil(reader.position / (alignment as number)) * (alignment as number);
  for (const { name, end } of tensors) {
    if (dataStart + end > size)
      fail(`tensor ${name}`, `the file is truncated: tensor ${name} ends at byte ${dataStart + end}, but the file has ${size} bytes.`);
  }
}

type Fail = (field: string, problem: string) => never;

async function readString(reader: FileReader, size: number, fail: Fail, field: string): Promise<string> {
  const length = await reader.u64();
  if (length > size - reader.position) fail(field, `${field}, a string of ${length} bytes, runs past the end of the file.`);
  return (await reader.bytes(length)).toString('utf8');
}

/** Skips `count` values of `type` (strings and nested arrays read through for their lengths). */
async function skipValues(reader: FileReader, type: number, count: number, size: number, fail: Fail, field: string): Promise<void> {
  const fixed = SCALAR_BYTES[type];
  if (fixed !== undefined) return reader.skip(fixed * count);
  if (type === STRING) {
    for (let i = 0; i < count; i++) {
      const length = await reader.u64();
      if (length > size - reader.position) fail(field, `${field}, a string of ${length} bytes, runs past the end of the file.`);
      await reader.skip(length);
    }
    return;
  }
  if (type === ARRAY) {
    for (let i = 0; i < count; i++) {
      const itemType = await reader.u32();
      await skipValues(reader, itemType, await reader.u64(), size, fail, field);
    }
    return;
  }
  fail(field, `its value has the unknown type ${type}.`);
}
