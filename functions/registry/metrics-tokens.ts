// The registry Durable Object's metrics tokens: read-only bearer tokens for
// GET /v1/registry/metrics (a Prometheus scraper's), kept as their SHA-256
// only, as CLUSTERS keeps the apiservers' tokens. Issued through the
// governed path (a widening change: the threshold's keys) and revoked by one
// key. A table of its own, new in 0.2.0: a registry of 0.1.0 never reads it.

/** Tokens held at once: a few scrapers (one per Prometheus, one while one rotates), bounded whatever a key sends. */
export const MAX_METRICS_TOKENS = 16;
/** A token's name: what `edgeadmit metrics tokens` lists and `metrics revoke` names. */
export const METRICS_TOKEN_NAME = /^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/;

export interface MetricsToken {
  name: string;
  /** `sha256:<hex>` of the token. */
  tokenHash: string;
  issuedAt: number;
  /** The change log entry that issued it. */
  issuedSeq: number;
}

interface TokenRow extends Record<string, SqlStorageValue> {
  name: string;
  token_hash: string;
  issued_at: number;
  issued_seq: number;
}

export class MetricsTokenTables {
  constructor(private readonly storage: DurableObjectStorage) {
    storage.sql.exec("CREATE TABLE IF NOT EXISTS metrics_token (name TEXT PRIMARY KEY, token_hash TEXT NOT NULL, issued_at INTEGER NOT NULL, issued_seq INTEGER NOT NULL);");
  }

  list(): MetricsToken[] {
    return this.storage.sql
      .exec<TokenRow>("SELECT * FROM metrics_token ORDER BY name")
      .toArray()
      .map((row) => ({ name: row.name, tokenHash: row.token_hash, issuedAt: row.issued_at, issuedSeq: row.issued_seq }));
  }

  has(name: string): boolean {
    return this.storage.sql.exec("SELECT 1 FROM metrics_token WHERE name = ?", name).toArray().length > 0;
  }

  count(): number {
    return this.storage.sql.exec<{ n: number }>("SELECT COUNT(*) AS n FROM metrics_token").one().n;
  }

  issue(name: string, tokenHash: string, now: number, seq: number): void {
    this.storage.sql.exec("INSERT INTO metrics_token (name, token_hash, issued_at, issued_seq) VALUES (?, ?, ?, ?)", name, tokenHash, now, seq);
  }

  /** Whether a token of that name was there to revoke. */
  revoke(name: string): boolean {
    return this.storage.sql.exec("DELETE FROM metrics_token WHERE name = ? RETURNING name", name).toArray().length > 0;
  }
}
