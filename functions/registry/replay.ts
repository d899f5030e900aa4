// Replay protection for the operator's signed requests, shared by every
// change the registry Durable Object applies (cluster registrations, fleet
// policy sets): a request is named by the SHA-256 of its signed bytes and
// remembered until its signing time could no longer pass the clock check.
// Checked and recorded inside the change's own transaction, so a replay can
// never slip between the check and the write, and a refused change (rolled
// back) is not remembered.

/** The table, created by the Durable Object's constructor. */
export const APPLIED_CHANGE_TABLE = "CREATE TABLE IF NOT EXISTS applied_change (change_id TEXT PRIMARY KEY, expires_at INTEGER NOT NULL);";

export const REPLAYED = "this signed change was already applied (the same request, sent again)";

/** Records `changeId`; false when it was recorded before (a replay). Call inside the change's transaction. */
export function recordChange(sql: SqlStorage, changeId: string, now: number, rememberUntil: number): boolean {
  sql.exec("DELETE FROM applied_change WHERE expires_at < ?", now);
  if (sql.exec("SELECT 1 FROM applied_change WHERE change_id = ?", changeId).toArray().length > 0) return false;
  sql.exec("INSERT INTO applied_change (change_id, expires_at) VALUES (?, ?)", changeId, rememberUntil);
  return true;
}
