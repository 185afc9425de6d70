/**
 * The cheap checks made before llama.cpp is handed a GGUF file: files that would abort it or that
 * are cut short are refused with the field at fault, and a well-formed model passes, in the time
 * its header takes to read.
 */
import { open, stat, truncate, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkGgufFile, GgufFileError } from '../../src/runtimes/gguf-header.js';
import { tempDir } from '../helpers/temp-dir.js';
import { writeTinyGguf } from '../helpers/tiny-gguf.js';

const folder = await tempDir('cms-gguf-');
let count = 0;
const fileNamed = () => path.join(folder, `model-${++count}.gguf`);

/** The error `checkGgufFile` throws for `file`, or undefined when it passes. */
async function problemOf(file: string): Promise<GgufFileError | undefined> {
  try {
    await checkGgufFile(file);
    return undefined;
  } catch (error) {
    if (error instanceof GgufFileError) return error;
    throw error;
  }
}

describe('checkGgufFile', () => {
  it('passes a well-formed model, heavy vocabulary included', async () => {
    const file = fileNamed();
    await writeTinyGguf(file, { extraTokens: 20_000 });
    expect(await problemOf(file)).toBeUndefined();
  });

  it('refuses a header whose head_count is 0 (the assert that aborts llama.cpp), naming the field', async () => {
    const file = fileNamed();
    await writeTinyGguf(file, { headCount: 0 });
    const problem = await problemOf(file);
    expect(problem?.field).toBe('llama.attention.head_count');
    expect(problem?.message).toMatch(/llama\.attention\.head_count is 0; it must be at least 1/);
  });

  it('refuses a file truncated in the middle of its tensors, naming the tensor cut short', async () => {
    const file = fileNamed();
    await writeTinyGguf(file);
    await truncate(file, (await stat(file)).size - 1_000);
    const problem = await problemOf(file);
    expect(problem?.field).toMatch(/^tensor /);
    expect(problem?.message).toMatch(/truncated: tensor \S+ ends at byte \d+, but the file has \d+ bytes/);
  });

  it('refuses a file cut inside its header, naming the field it runs out in', async () => {
    const file = fileNamed();
    await writeTinyGguf(file);
    await truncate(file, 2_000); // inside the vocabulary
    const problem = await problemOf(file);
    expect(problem?.field).toBe('tokenizer.ggml.tokens');
    expect(problem?.message).toMatch(/past the end of the file/);
  });

  it('refuses what is not GGUF, and versions llama.cpp does not read', async () => {
    const text = fileNamed();
    await writeFile(text, `<html>${'Not found. '.repeat(10)}</html>`);
    expect((await problemOf(text))?.field).toBe('magic');

    const file = fileNamed();
    await writeTinyGguf(file);
    const handle = await open(file, 'r+');
    await handle.write(Buffer.from([1, 0, 0, 0]), 0, 4, 4); // version 1
    await handle.close();
    expect((await problemOf(file))?.field).toBe('version');
  });
});
