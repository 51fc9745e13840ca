package dev.pulsebus.storage;

import java.util.Locale;

/** The SQL that differs between the three backends; everything else is shared. */
enum Dialect {
    SQLITE("sqlite", "sqlite",
            "INSERT INTO pulsebus_kv (ns, k, v, expires_at) VALUES (?, ?, ?, ?)"
                    + " ON CONFLICT (ns, k) DO UPDATE SET v = excluded.v, expires_at = excluded.expires_at",
            "INSERT INTO pulsebus_kv (ns, k, v, expires_at) VALUES (?, ?, ?, NULL) ON CONFLICT (ns, k) DO NOTHING",
            " ON CONFLICT (seq) DO NOTHING"),
    POSTGRESQL("postgresql", "postgresql",
            "INSERT INTO pulsebus_kv (ns, k, v, expires_at) VALUES (?, ?, ?, ?)"
                    + " ON CONFLICT (ns, k) DO UPDATE SET v = EXCLUDED.v, expires_at = EXCLUDED.expires_at",
            "INSERT INTO pulsebus_kv (ns, k, v, expires_at) VALUES (?, ?, ?, NULL) ON CONFLICT (ns, k) DO NOTHING",
            " ON CONFLICT (seq) DO NOTHING"),
    MYSQL("mysql", "mysql",
            "INSERT INTO pulsebus_kv (ns, k, v, expires_at) VALUES (?, ?, ?, ?)"
                    + " ON DUPLICATE KEY UPDATE v = VALUES(v), expires_at = VALUES(expires_at)",
            "INSERT IGNORE INTO pulsebus_kv (ns, k, v, expires_at) VALUES (?, ?, ?, NULL)",
            " ON DUPLICATE KEY UPDATE seq = seq");

    /** Rows one retention or expiry DELETE removes before it commits, so writers wait at most that long. */
    static final int DELETE_CHUNK = 1000;

    final String backend;
    final String migrations;
    final String upsert;
    final String insertIfAbsent;
    /**
     * Ends a transcript INSERT so that a row whose seq is already stored is skipped: a batch retried after
     * a commit whose answer was lost (the connection cut between COMMIT and its reply) stores each record
     * once instead of failing on its own rows for ever.
     */
    final String transcriptConflict;

    Dialect(String backend, String folder, String upsert, String insertIfAbsent, String transcriptConflict) {
        this.backend = backend;
        this.migrations = "classpath:dev/pulsebus/storage/migration/" + folder;
        this.upsert = upsert;
        this.insertIfAbsent = insertIfAbsent;
        this.transcriptConflict = transcriptConflict;
    }

    /** The dialect of a JDBC URL, or a clear error naming the ones supported. */
    static Dialect of(String jdbcUrl) {
        String url = jdbcUrl.toLowerCase(Locale.ROOT);
        if (url.startsWith("jdbc:sqlite:")) {
            return SQLITE;
        }
        if (url.startsWith("jdbc:postgresql:")) {
            return POSTGRESQL;
        }
        if (url.startsWith("jdbc:mariadb:") || url.startsWith("jdbc:mysql:")) {
            return MYSQL;
        }
        throw new StorageException("unsupported JDBC URL '" + jdbcUrl
                + "': PulseBus stores data in jdbc:sqlite:, jdbc:postgresql: or jdbc:mariadb:/jdbc:mysql:");
    }

    /**
     * A DELETE of at most {@link #DELETE_CHUNK} rows of {@code table} matching {@code where}; run it
     * until it deletes fewer, each in its own short transaction.
     */
    String chunkedDelete(String table, String key, String where) {
        if (this == MYSQL) {
            return "DELETE FROM " + table + " WHERE " + where + " ORDER BY " + key + " LIMIT " + DELETE_CHUNK;
        }
        return "DELETE FROM " + table + " WHERE (" + key + ") IN (SELECT " + key + " FROM " + table
                + " WHERE " + where + " LIMIT " + DELETE_CHUNK + ")";
    }
}
