// The units a push sends, and where their bytes wait until it sends them.
// `edgeadmit sync` writes each unit's bytes to a file in the temporary
// directory as soon as it is encoded, and keeps only its name, SHA-256, size
// and place in the file: what a comparison with the function reads, whatever
// the cluster's size. A push reads the bytes of one body's units at a time.
import { closeSync, mkdtempSync, openSync, readSync, rmSync, writeSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { bucketDigests, rootDigest, type EncodedSnapshot, type EncodedUnit } from "../../shared/snapshot/index.js";
import { CliError } from "../base/errors.js";

/** A unit as a push and a comparison know it: its name, its bytes' SHA-256 and their length. */
export interface UnitRef {
  name: string;
  sha256: string;
  size: number;
}

/** A snapshot's units as a push reads them: each one's name, hash and size, the digests over them, and each one's bytes when its body is made. */
export interface PushUnits {
  units: readonly UnitRef[];
  buckets: ReadonlyMap<number, string>;
  digest: string;
  bytesOf(unit: UnitRef): Uint8Array;
}

/** A snapshot encoded whole (encodeSnapshot), as a push reads it. */
export function unitsInMemory(encoded: EncodedSnapshot): PushUnits {
  const bytes = new Map(encoded.units.map((unit) => [unit.name, unit.bytes]));
  return { units: encoded.units.map(({ name, sha256, bytes }) => ({ name, sha256, size: bytes.length })), buckets: encoded.buckets, digest: encoded.digest, bytesOf: (unit) => bytes.get(unit.name)! };
}

interface Placed extends UnitRef {
  /** Where the bytes start in the file. */
  offset: number;
}

/**
 * Units added one at a time, their bytes in a file of their own (removed by
 * close()), or, where the temporary directory cannot be written (a read-only
 * root file system without a volume there), in memory, with `inMemoryBecause`
 * saying why.
 */
export class UnitFile {
  readonly #placed: Placed[] = [];
  readonly #inMemory = new Map<string, Uint8Array>();
  #file: { dir: string; fd: number } | undefined;
  #size = 0;
  readonly inMemoryBecause: string | undefined;

  constructor(dir = tmpdir()) {
    try {
      const made = mkdtempSync(join(dir, "edgeadmit-units-"));
      this.#file = { dir: made, fd: openSync(join(made, "units"), "w+", 0o600) };
    } catch (e) {
      this.inMemoryBecause = `cannot write to ${dir} (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`;
    }
  }

  add(unit: EncodedUnit): void {
    const placed = { name: unit.name, sha256: unit.sha256, size: unit.bytes.length, offset: this.#size };
    if (this.#file) {
      try {
        for (let written = 0; written < unit.bytes.length; ) written += writeSync(this.#file.fd, unit.bytes, written, unit.bytes.length - written, this.#size + written);
      } catch (e) {
        throw new CliError(`cannot write the snapshot's units to ${this.#file.dir}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
      }
    } else this.#inMemory.set(unit.name, unit.bytes);
    this.#size += unit.bytes.length;
    this.#placed.push(placed);
  }

  /** Forgets every unit added: a listing that starts over adds them again. */
  clear(): void {
    this.#placed.length = 0;
    this.#inMemory.clear();
    this.#size = 0;
  }

  /** The units added, with their digests. */
  sealed(): PushUnits {
    const buckets = bucketDigests(this.#placed);
    return { units: this.#placed, buckets, digest: rootDigest(buckets), bytesOf: (unit) => this.#read(unit as Placed) };
  }

  #read(unit: Placed): Uint8Array {
    if (!this.#file) return this.#inMemory.get(unit.name)!;
    const bytes = new Uint8Array(unit.size);
    for (let read = 0; read < unit.size; ) {
      const got = readSync(this.#file.fd, bytes, read, unit.size - read, unit.offset + read);
      if (got === 0) throw new Error(`the units' file ended before unit ${JSON.stringify(unit.name)}`);
      read += got;
    }
    return bytes;
  }

  close(): void {
    if (!this.#file) return;
    closeSync(this.#file.fd);
    rmSync(this.#file.dir, { recursive: true, force: true });
    this.#file = undefined;
  }
}
