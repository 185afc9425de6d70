import type { FileHandle } from 'node:fs/promises';

/** A read past the end of the file. */
export class EndOfFileError extends Error {
  override readonly name = 'EndOfFileError';
}

const CHUNK_BYTES = 64 * 1024;

/**
 * Reads a file front to back in little-endian values, through a 64 KiB buffer: a header of
 * megabytes (a GGUF vocabulary) is read without holding the file, and skipping costs no read.
 */
export class FileReader {
  #buffer = Buffer.alloc(0);
  /** The file position of `#buffer[0]`. */
  #bufferStart = 0;
  /** The file position of the next value. */
  position = 0;
  /** What is being read, set by the caller: it names the place where a file ends too early. */
  label = 'header';

  constructor(
    private readonly handle: FileHandle,
    private readonly size: number,
  ) {}

  /** The next `length` bytes (a view into the buffer when they are in it). */
  async bytes(length: number): Promise<Buffer> {
    await this.#fill(length);
    const start = this.position - this.#bufferStart;
    this.position += length;
    return this.#buffer.subarray(start, start + length);
  }

  async skip(length: number): Promise<void> {
    if (this.position + length > this.size) throw new EndOfFileError(`A read of ${length} bytes at ${this.position} runs past the end.`);
    this.position += length;
  }

  async u32(): Promise<number> {
    return (await this.bytes(4)).readUInt32LE(0);
  }

  /** A u64, as a number: exact up to 2^53, and any larger value fails every check it meets. */
  async u64(): Promise<number> {
    return Number((await this.bytes(8)).readBigUInt64LE(0));
  }

  /** An integer of GGUF value type `type` (u8, i8, u16, i16, u32, i32, u64, i64). */
  async integer(type: number): Promise<number> {
    switch (type) {
      case 0:
        return (await this.bytes(1)).readUInt8(0);
      case 1:
        return (await this.bytes(1)).readInt8(0);
      case 2:
        return (await this.bytes(2)).readUInt16LE(0);
      case 3:
        return (await this.bytes(2)).readInt16LE(0);
      case 4:
        return this.u32();
      case 5:
        return (await this.bytes(4)).readInt32LE(0);
      case 10:
        return this.u64();
      case 11:
        return Number((await this.bytes(8)).readBigInt64LE(0));
      default:
        throw new Error(`GGUF value type ${type} is not an integer.`);
    }
  }

  /** Makes `length` bytes from `position` available in the buffer. */
  async #fill(length: number): Promise<void> {
    if (this.position + length > this.size) throw new EndOfFileError(`A read of ${length} bytes at ${this.position} runs past the end.`);
    const end = this.#bufferStart + this.#buffer.length;
    if (this.position >= this.#bufferStart && this.position + length <= end) return;
    const want = Math.min(Math.max(length, CHUNK_BYTES), this.size - this.position);
    const buffer = Buffer.alloc(want);
    let read = 0;
    while (read < want) {
      const { bytesRead } = await this.handle.read(buffer, read, want - read, this.position + read);
      if (bytesRead === 0) throw new EndOfFileError(`The file ended at ${this.position + read} bytes while being read.`);
      read += bytesRead;
    }
    this.#buffer = buffer;
    this.#bufferStart = this.position;
  }
}
