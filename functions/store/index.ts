// One Durable Object per cluster holds its snapshot. Chosen over Workers KV
// because the generation check and the write are one atomic step (KV has no
// compare-and-set, so two pushes could let an older one win), reads after a
// push are consistent everywhere (KV may serve the old value for 60 s), and a
// large snapshot written in chunks inside one transaction is never seen half-written.
import { DurableObject } from "cloudflare:workers";

export interface SnapshotMeta {
  generation: number;
  contentHash: string;
  builtAt: string;
  /** Milliseconds since the epoch, by the function's clock. */
  pushedAt: number;
  bytes: number;
}

export type WriteResult = { stored: true; meta: SnapshotMeta } | { stored: false; current: SnapshotMeta };

// SQLite-backed Durable Objects cap a row at 2 MB; 512 Ki UTF-16 units stay below it in UTF-8.
const CHUNK_CHARS = 512 * 1024;

export class SnapshotStore extends DurableObject<unknown> {
  constructor(ctx: DurableObjectState, env: unknown) {
    super(ctx, env);
    ctx.storage.sql.exec(
      `CREATE TABLE IF NOT EXISTS meta (id INTEGER PRIMARY KEY CHECK (id = 1), generation INTEGER NOT NULL, content_hash TEXT NOT NULL, built_at TEXT NOT NULL, pushed_at INTEGER NOT NULL, bytes INTEGER NOT NULL);
       CREATE TABLE IF NOT EXISTS chunk (seq INTEGER PRIMARY KEY, data TEXT NOT NULL);`,
    );
  }

  head(): SnapshotMeta | null {
    const row = this.ctx.storage.sql
      .exec<{ generation: number; content_hash: string; built_at: string; pushed_at: number; bytes: number }>("SELECT * FROM meta WHERE id = 1")
      .toArray()[0];
    return row ? { generation: row.generation, contentHash: row.content_hash, builtAt: row.built_at, pushedAt: row.pushed_at, bytes: row.bytes } : null;
  }

  read(): { meta: SnapshotMeta; text: string } | null {
    const meta = this.head();
    if (!meta) return null;
    const chunks = this.ctx.storage.sql.exec<{ data: string }>("SELECT data FROM chunk ORDER BY seq").toArray();
    return { meta, text: chunks.map((c) => c.data).join("") };
  }

  /** Stores `text` only if its generation is newer than the stored one; all or nothing. */
  write(text: string, meta: SnapshotMeta): WriteResult {
    return this.ctx.storage.transactionSync(() => {
      const current = this.head();
      if (current && meta.generation <= current.generation) return { stored: false, current };
      const sql = this.ctx.storage.sql;
      sql.exec("DELETE FROM chunk");
      for (let seq = 0; seq * CHUNK_CHARS < text.length; seq++) {
        sql.exec("INSERT INTO chunk (seq, data) VALUES (?, ?)", seq, text.slice(seq * CHUNK_CHARS, (seq + 1) * CHUNK_CHARS));
      }
      sql.exec(
        "INSERT OR REPLACE INTO meta (id, generation, content_hash, built_at, pushed_at, bytes) VALUES (1, ?, ?, ?, ?, ?)",
        meta.generation, meta.contentHash, meta.builtAt, meta.pushedAt, meta.bytes,
      );
      return { stored: true, meta };
    });
  }
}
