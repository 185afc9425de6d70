import { open } from 'node:fs/promises';

/** The shape of the generated model. Defaults make a ~0.2 MB model that loads in well under a second. */
export interface TinyGgufOptions {
  /** Width of the model (`llama.embedding_length`). Default 32. */
  readonly embedding?: number;
  /** Transformer blocks. Default 1. */
  readonly blocks?: number;
  /** Tokens of context it was "trained" for. Default 4,096 (its byte-level vocabulary makes prompts long). */
  readonly contextLength?: number;
  /** Filler tokens added to the vocabulary, to make a heavier model (the memory test). Default 0. */
  readonly extraTokens?: number;
  /** Seeds the random weights, so a file is the same on every run. Default 1. */
  readonly seed?: number;
  /**
   * `llama.attention.head_count` as written in the header. Default 4. A malformed file says 0, which
   * trips an assert inside llama.cpp that aborts the process that loads it.
   */
  readonly headCount?: number;
  /**
   * ggml tensor types by tensor name (default F32, 0, for all). I32 (26) token embeddings are the
   * right size, so every header check passes, but no backend computes with them: llama.cpp then
   * aborts the process on a native assert when it makes the model's context.
   */
  readonly tensorTypes?: Readonly<Record<string, number>>;
}

// GGUF value types and the tensor type used here (ggml's F32).
const U32 = 4,
  I32 = 5,
  F32 = 6,
  STRING = 8,
  ARRAY = 9;
const GGML_F32 = 0;
const ALIGNMENT = 32;
// Token types of llama.cpp's vocabulary: normal, unknown, control, byte.
const NORMAL = 1,
  UNKNOWN = 2,
  CONTROL = 3,
  BYTE = 6;
const CHATML =
  "{% for message in messages %}{{'<|im_start|>' + message['role'] + '\n' + message['content'] + '<|im_end|>' + '\n'}}{% endfor %}{% if add_generation_prompt %}{{ '<|im_start|>assistant\n' }}{% endif %}";
const WORDS =
  'the of to and in is it for on with as that this title summary user assistant retry payment api error code test model chat'.split(' ');

/**
 * Writes a llama-architecture GGUF (format v3, F32 weights) with random weights, a SentencePiece
 * vocabulary (control tokens, the 256 byte tokens llama.cpp requires, a few words) and a ChatML chat
 * template, so that node-llama-cpp loads it and applies a real template. It answers gibberish.
 */
export async function writeTinyGguf(file: string, options: TinyGgufOptions = {}): Promise<void> {
  const embd = options.embedding ?? 32,
    blocks = options.blocks ?? 1,
    ff = embd * 2,
    heads = 4;
  const tokens: [string, number][] = [
    ['<unk>', UNKNOWN],
    ['<s>', CONTROL],
    ['</s>', CONTROL],
    ['<|im_start|>', CONTROL],
    ['<|im_end|>', CONTROL],
  ];
  for (let byte = 0; byte < 256; byte++) tokens.push([`<0x${byte.toString(16).toUpperCase().padStart(2, '0')}>`, BYTE]);
  for (const letter of 'abcdefghijklmnopqrstuvwxyz') tokens.push([letter, NORMAL], [`▁${letter}`, NORMAL]);
  for (const word of WORDS) tokens.push([`▁${word}`, NORMAL]);
  for (let i = 0; i < (options.extraTokens ?? 0); i++) tokens.push([`▁w${i}`, NORMAL]);
  const vocab = tokens.length;

  const out = new Writer();
  const metadata: [string, (w: Writer) => void][] = [
    ['general.architecture', (w) => w.tag(STRING).str('llama')],
    ['general.name', (w) => w.tag(STRING).str('tiny-random-llama')],
    ['general.alignment', (w) => w.tag(U32).u32(ALIGNMENT)],
    ['llama.context_length', (w) => w.tag(U32).u32(options.contextLength ?? 4096)],
    ['llama.embedding_length', (w) => w.tag(U32).u32(embd)],
    ['llama.block_count', (w) => w.tag(U32).u32(blocks)],
    ['llama.feed_forward_length', (w) => w.tag(U32).u32(ff)],
    ['llama.attention.head_count', (w) => w.tag(U32).u32(options.headCount ?? heads)],
    ['llama.attention.head_count_kv', (w) => w.tag(U32).u32(heads)],
    ['llama.rope.dimension_count', (w) => w.tag(U32).u32(embd / heads)],
    ['llama.attention.layer_norm_rms_epsilon', (w) => w.tag(F32).f32(1e-5)],
    ['tokenizer.ggml.model', (w) => w.tag(STRING).str('llama')],
    ['tokenizer.ggml.tokens', (w) => w.array(STRING, tokens, ([text]) => w.str(text))],
    ['tokenizer.ggml.scores', (w) => w.array(F32, tokens, (_, i) => w.f32(-i))],
    ['tokenizer.ggml.token_type', (w) => w.array(I32, tokens, ([, type]) => w.i32(type))],
    ['tokenizer.ggml.unknown_token_id', (w) => w.tag(U32).u32(0)],
    ['tokenizer.ggml.bos_token_id', (w) => w.tag(U32).u32(1)],
    ['tokenizer.ggml.eos_token_id', (w) => w.tag(U32).u32(4)],
    ['tokenizer.chat_template', (w) => w.tag(STRING).str(CHATML)],
  ];
  // ggml lists dimensions innermost first: a [embd, vocab] matrix has `vocab` rows of `embd`.
  const tensors: [string, number[], 'norm' | 'random'][] = [
    ['token_embd.weight', [embd, vocab], 'random'],
    ['output_norm.weight', [embd], 'norm'],
    ['output.weight', [embd, vocab], 'random'],
  ];
  for (let b = 0; b < blocks; b++) {
    tensors.push(
      [`blk.${b}.attn_norm.weight`, [embd], 'norm'],
      [`blk.${b}.attn_q.weight`, [embd, embd], 'random'],
      [`blk.${b}.attn_k.weight`, [embd, embd], 'random'],
      [`blk.${b}.attn_v.weight`, [embd, embd], 'random'],
      [`blk.${b}.attn_output.weight`, [embd, embd], 'random'],
      [`blk.${b}.ffn_norm.weight`, [embd], 'norm'],
      [`blk.${b}.ffn_gate.weight`, [embd, ff], 'random'],
      [`blk.${b}.ffn_down.weight`, [ff, embd], 'random'],
      [`blk.${b}.ffn_up.weight`, [embd, ff], 'random'],
    );
  }

  out.bytes(new TextEncoder().encode('GGUF')).u32(3).u64(tensors.length).u64(metadata.length);
  for (const [key, value] of metadata) {
    out.str(key);
    value(out);
  }
  let offset = 0;
  for (const [name, dims] of tensors) {
    out.str(name).u32(dims.length);
    for (const dim of dims) out.u64(dim);
    out.u32(options.tensorTypes?.[name] ?? GGML_F32).u64(offset);
    offset += align(4 * dims.reduce((a, b) => a * b, 1));
  }
  out.pad();
  // Tensors are written one at a time, so a heavy model never sits whole in this process's memory.
  const handle = await open(file, 'w');
  try {
    await handle.write(out.take());
    const random = mulberry32(options.seed ?? 1);
    for (const [, dims, kind] of tensors) {
      const values = new Float32Array(dims.reduce((a, b) => a * b, 1));
      for (let i = 0; i < values.length; i++) values[i] = kind === 'norm' ? 1 : (random() - 0.5) * 0.2;
      out.bytes(new Uint8Array(values.buffer)).pad();
      await handle.write(out.take());
    }
  } finally {
    await handle.close();
  }
}

const align = (n: number) => Math.ceil(n / ALIGNMENT) * ALIGNMENT;

/** A small, seedable PRNG: the same file on every run, no dependency. */
function mulberry32(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Little-endian GGUF encoding into growing chunks. */
class Writer {
  private chunks: Uint8Array[] = [];
  private length = 0;
  bytes(bytes: Uint8Array) {
    this.chunks.push(bytes);
    this.length += bytes.length;
    return this;
  }
  private scalar(size: number, set: (view: DataView) => void) {
    const view = new DataView(new ArrayBuffer(size));
    set(view);
    return this.bytes(new Uint8Array(view.buffer));
  }
  u32 = (n: number) => this.scalar(4, (v) => v.setUint32(0, n, true));
  i32 = (n: number) => this.scalar(4, (v) => v.setInt32(0, n, true));
  f32 = (n: number) => this.scalar(4, (v) => v.setFloat32(0, n, true));
  u64 = (n: number) => this.scalar(8, (v) => v.setBigUint64(0, BigInt(n), true));
  /** A metadata value's type. */
  tag = (type: number) => this.u32(type);
  /** A GGUF string: its length, then its UTF-8. */
  str(text: string) {
    const utf8 = new TextEncoder().encode(text);
    return this.u64(utf8.length).bytes(utf8);
  }
  array<T>(type: number, items: readonly T[], each: (item: T, index: number) => void) {
    this.tag(ARRAY).u32(type).u64(items.length);
    items.forEach(each);
    return this;
  }
  pad() {
    return this.bytes(new Uint8Array(align(this.length) - this.length));
  }
  /** What was written since the last take; `pad()` still counts from the start of the file. */
  take() {
    const result = Buffer.concat(this.chunks);
    this.chunks = [];
    return result;
  }
}
