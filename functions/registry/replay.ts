// Replay protection for the operator's signed requests, shared by every
// change the registry Durable Object applies (cluster registrations, fleet
// policy sets): a request is named by the SHA-256 of its signed bytes and
// remembered until its signing time could no longer pass the clock check.
// Recorded in a transaction of its own before the change applies, so a
// refused change (rolled back) stays remembered too: replayed after the
// state moved on, it must not apply, since the operator signed it against
// what they saw then.

/** The table, created by the Durable Object's constructor. */
export const APPLIED_CHANGE_TABLE = "CREATE TABLE IF NOT EXISTS applied_change (change_id TEXT PRIMARY KEY, expires_at INTEGER NOT NULL);";

export const REPLAYED = "this signed request was already received (the same request, sent again): sign a new one";

/** Records `changeId` in its own transaction; false when it was recorded before (a replay). */
export function recordChange(storage: DurableObjectStorage, changeId: string, now: number, rememberUntil: number): boolean {
  return storage.transactionSync(() => {
    const sql = storage.sql;
    sql.exec("DELETE FROM applied_change WHERE expires_at < ?", now);
    if (sql.exec("SELECT 1 FROM applied_change WHERE change_id = ?", changeId).toArray().length > 0) return false;
    sql.exec("INSERT INTO applied_change (change_id, expires_at) VALUES (?, ?)", changeId, rememberUntil);
    return true;
  });
}
