// One Durable Object per cluster holds its snapshot. Chosen over Workers KV
// because the generation check and the write are one atomic step (KV has no
// compare-and-set, so two pushes could let an older one win), reads after a
// push are consistent everywhere (KV may serve the old value for 60 s), and a
// large snapshot written in chunks inside one transaction is never seen half-written.
//
// The snapshot is stored as the UTF-8 bytes the worker hands over, cut into
// BLOB chunks: no byte sequence can be altered by the cut (text cut into
// UTF-16 slices once split surrogate pairs). Every read checks the bytes
// against the SHA-256 recorded with them and refuses, and remembers, a
// mismatch instead of serving it.
import { DurableObject } from "cloudflare:workers";
import { sha256Hex } from "../../shared/digest/index.js";

export interface SnapshotMeta {
  generation: number;
  contentHash: string;
  builtAt: string;
  /** Milliseconds since the epoch, by the function's clock. */
  pushedAt: number;
  /** Size of the pushed body. */
  bytes: number;
  /** SHA-256 of the stored bytes. */
  storedSha256: string;
  /** Set once a read found the stored bytes differ from `storedSha256`: why. */
  corrupt?: string;
}

export type WriteResult = { stored: true; meta: SnapshotMeta } | { stored: false; current: SnapshotMeta };
export type ReadResult = { ok: true; meta: SnapshotMeta; bytes: Uint8Array } | { ok: false; meta: SnapshotMeta; corrupt: string };

// SQLite-backed Durable Objects cap a row at 2 MB.
const CHUNK_BYTES = 1024 * 1024;

interface MetaRow extends Record<string, SqlStorageValue> {
  generation: number;
  content_hash: string;
  built_at: string;
  pushed_at: number;
  bytes: number;
  stored_sha256: string;
  corrupt: string | null;
}

export class SnapshotStore extends DurableObject<unknown> {
  constructor(ctx: DurableObjectState, env: unknown) {
    super(ctx, env);
    // `meta`/`chunk` held text in UTF-16 slices (before v2): they are dropped, and the next sync pushes again.
    ctx.storage.sql.exec(
      `DROP TABLE IF EXISTS meta;
       DROP TABLE IF EXISTS chunk;
       CREATE TABLE IF NOT EXISTS snapshot_meta (id INTEGER PRIMARY KEY CHECK (id = 1), generation INTEGER NOT NULL, content_hash TEXT NOT NULL,
         built_at TEXT NOT NULL, pushed_at INTEGER NOT NULL, bytes INTEGER NOT NULL, stored_sha256 TEXT NOT NULL, corrupt TEXT);
       CREATE TABLE IF NOT EXISTS snapshot_chunk (seq INTEGER PRIMARY KEY, data BLOB NOT NULL);`,
    );
  }

  head(): SnapshotMeta | null {
    const row = this.ctx.storage.sql.exec<MetaRow>("SELECT * FROM snapshot_meta WHERE id = 1").toArray()[0];
    if (!row) return null;
    const meta: SnapshotMeta = {
      generation: row.generation,
      contentHash: row.content_hash,
      builtAt: row.built_at,
      pushedAt: row.pushed_at,
      bytes: row.bytes,
      storedSha256: row.stored_sha256,
    };
    if (row.corrupt !== null) meta.corrupt = row.corrupt;
    return meta;
  }

  async read(): Promise<ReadResult | null> {
    const meta = this.head();
    if (!meta) return null;
    if (meta.corrupt) return { ok: false, meta, corrupt: meta.corrupt };
    const chunks = this.ctx.storage.sql.exec<{ data: ArrayBuffer }>("SELECT data FROM snapshot_chunk ORDER BY seq").toArray();
    const bytes = new Uint8Array(chunks.reduce((size, chunk) => size + chunk.data.byteLength, 0));
    let offset = 0;
    for (const { data } of chunks) {
      bytes.set(new Uint8Array(data), offset);
      offset += data.byteLength;
    }
    const actual = await sha256Hex(bytes);
    if (actual === meta.storedSha256) return { ok: true, meta, bytes };
    const corrupt = `stored bytes hash to ${actual.slice(0, 12)}, not the ${meta.storedSha256.slice(0, 12)} recorded when generation ${meta.generation} was stored`;
    this.ctx.storage.sql.exec("UPDATE snapshot_meta SET corrupt = ? WHERE id = 1 AND generation = ?", corrupt, meta.generation);
    return { ok: false, meta: { ...meta, corrupt }, corrupt };
  }

  /** Stores `bytes` only if its generation is newer than the stored one; all or nothing. */
  write(bytes: Uint8Array, meta: SnapshotMeta): WriteResult {
    return this.ctx.storage.transactionSync(() => {
      const current = this.head();
      if (current && meta.generation <= current.generation) return { stored: false, current };
      const sql = this.ctx.storage.sql;
      sql.exec("DELETE FROM snapshot_chunk");
      for (let seq = 0; seq * CHUNK_BYTES < bytes.length; seq++) {
        sql.exec("INSERT INTO snapshot_chunk (seq, data) VALUES (?, ?)", seq, bytes.slice(seq * CHUNK_BYTES, (seq + 1) * CHUNK_BYTES).buffer);
      }
      sql.exec(
        "INSERT OR REPLACE INTO snapshot_meta (id, generation, content_hash, built_at, pushed_at, bytes, stored_sha256, corrupt) VALUES (1, ?, ?, ?, ?, ?, ?, NULL)",
        meta.generation, meta.contentHash, meta.builtAt, meta.pushedAt, meta.bytes, meta.storedSha256,
      );
      return { stored: true, meta: { ...meta } };
    });
  }
}
