-- KV: one row per (namespace, key). utf8mb4_bin: keys compare by code point (= UTF-8 byte order),
-- case-sensitively, as on SQLite and PostgreSQL.
CREATE TABLE pulsebus_kv (
    ns         VARCHAR(64)  CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL,
    k          VARCHAR(255) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL,
    v          LONGBLOB NOT NULL,
    expires_at BIGINT NULL,
    PRIMARY KEY (ns, k),
    INDEX pulsebus_kv_expiry (expires_at)
) ENGINE = InnoDB;

CREATE TABLE pulsebus_transcript (
    seq         BIGINT PRIMARY KEY,
    platform    VARCHAR(64)  CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL,
    detail_type VARCHAR(16)  CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL,
    chat_id     VARCHAR(255) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL,
    user_id     VARCHAR(255) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL,
    time_ms     BIGINT   NOT NULL,
    message_id  VARCHAR(255) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL,
    message     MEDIUMTEXT CHARACTER SET utf8mb4 NOT NULL,
    outbound    BOOLEAN  NOT NULL,
    INDEX pulsebus_transcript_chat (platform, detail_type, chat_id, seq),
    INDEX pulsebus_transcript_time (time_ms)
) ENGINE = InnoDB;
