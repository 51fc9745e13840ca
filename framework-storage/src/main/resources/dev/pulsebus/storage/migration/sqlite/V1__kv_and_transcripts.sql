-- KV: one row per (namespace, key). WITHOUT ROWID keeps the row in the primary-key b-tree:
-- one lookup per point read and one b-tree per write (with a 64 MB page cache, 18.6 k -> 48.9 k
-- single-row commits/s on this machine's kind, measured before this schema was written: issue 5).
CREATE TABLE pulsebus_kv (
    ns         TEXT    NOT NULL,
    k          TEXT    NOT NULL,
    v          BLOB    NOT NULL,
    expires_at INTEGER,
    PRIMARY KEY (ns, k)
) WITHOUT ROWID;
CREATE INDEX pulsebus_kv_expiry ON pulsebus_kv (expires_at) WHERE expires_at IS NOT NULL;

-- Transcripts: seq is the writer's global order; reads are "last n of a chat before seq".
CREATE TABLE pulsebus_transcript (
    seq         INTEGER PRIMARY KEY,
    platform    TEXT    NOT NULL,
    detail_type TEXT    NOT NULL,
    chat_id     TEXT    NOT NULL,
    user_id     TEXT    NOT NULL,
    time_ms     INTEGER NOT NULL,
    message_id  TEXT    NOT NULL,
    message     TEXT    NOT NULL,
    outbound    INTEGER NOT NULL
);
CREATE INDEX pulsebus_transcript_chat ON pulsebus_transcript (platform, detail_type, chat_id, seq);
CREATE INDEX pulsebus_transcript_time ON pulsebus_transcript (time_ms);
