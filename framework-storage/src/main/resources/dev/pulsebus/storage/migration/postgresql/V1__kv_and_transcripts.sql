-- KV: one row per (namespace, key). Keys collate as "C" (byte order), so prefix listing is a
-- range scan of the primary key and means the same on every backend.
CREATE TABLE pulsebus_kv (
    ns         VARCHAR(64)  COLLATE "C" NOT NULL,
    k          VARCHAR(255) COLLATE "C" NOT NULL,
    v          BYTEA  NOT NULL,
    expires_at BIGINT,
    PRIMARY KEY (ns, k)
);
CREATE INDEX pulsebus_kv_expiry ON pulsebus_kv (expires_at) WHERE expires_at IS NOT NULL;

CREATE TABLE pulsebus_transcript (
    seq         BIGINT PRIMARY KEY,
    platform    VARCHAR(64)  NOT NULL,
    detail_type VARCHAR(16)  NOT NULL,
    chat_id     VARCHAR(255) NOT NULL,
    user_id     VARCHAR(255) NOT NULL,
    time_ms     BIGINT  NOT NULL,
    message_id  VARCHAR(255) NOT NULL,
    message     TEXT    NOT NULL,
    outbound    BOOLEAN NOT NULL
);
CREATE INDEX pulsebus_transcript_chat ON pulsebus_transcript (platform, detail_type, chat_id, seq);
CREATE INDEX pulsebus_transcript_time ON pulsebus_transcript (time_ms);
