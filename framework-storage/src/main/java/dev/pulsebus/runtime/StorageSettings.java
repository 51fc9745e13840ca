package dev.pulsebus.runtime;

import dev.pulsebus.config.Section;
import dev.pulsebus.config.Secret;
import java.nio.file.Path;
import java.util.Objects;
import java.util.Set;

/**
 * {@code [storage]}: where the KV store, transcripts and quotas live. SQLite in {@code data_dir} unless
 * {@code jdbc_url} names PostgreSQL or MariaDB.
 *
 * @param dataDir     SQLite's folder, and where transcripts spill at shutdown ({@code data_dir}, {@code data})
 * @param jdbcUrl     a PostgreSQL or MariaDB URL; empty: SQLite
 * @param username    the database user (empty: the URL's)
 * @param password    the database password, masked
 * @param synchronous SQLite's {@code synchronous} ({@code NORMAL})
 * @param cacheSize   the KV store's cache, in entries (10,000)
 */
public record StorageSettings(Path dataDir, String jdbcUrl, String username, Secret password, String synchronous,
                              long cacheSize) {

    /** The section's keys. */
    public static final Set<String> KEYS = Set.of("data_dir", "jdbc_url", "username", "password", "synchronous",
            "cache_size");
    /** Every setting at its default. */
    public static final StorageSettings DEFAULTS = new StorageSettings(Path.of("data"), "", "", Secret.NONE, "NORMAL",
            10_000);

    public StorageSettings {
        Objects.requireNonNull(dataDir, "dataDir");
        Objects.requireNonNull(jdbcUrl, "jdbcUrl");
        Objects.requireNonNull(username, "username");
        Objects.requireNonNull(password, "password");
        Objects.requireNonNull(synchronous, "synchronous");
    }

    /** Reads {@code [storage]}; an error names the setting and where it is set. */
    public static StorageSettings read(Section s) {
        StorageSettings d = DEFAULTS;
        return new StorageSettings(Path.of(s.text("data_dir", d.dataDir.toString())), s.text("jdbc_url", d.jdbcUrl),
                s.text("username", d.username), s.secret("password"), s.text("synchronous", d.synchronous),
                s.longValue("cache_size", d.cacheSize, 0, 100_000_000));
    }

    public static Builder builder() {
        return DEFAULTS.toBuilder();
    }

    public Builder toBuilder() {
        return new Builder(this);
    }

    /** Builds {@link StorageSettings}, from the defaults or from a copy. Not thread-safe. */
    public static final class Builder {
        private Path dataDir;
        private String jdbcUrl;
        private String username;
        private Secret password;
        private String synchronous;
        private long cacheSize;

        private Builder(StorageSettings s) {
            this.dataDir = s.dataDir;
            this.jdbcUrl = s.jdbcUrl;
            this.username = s.username;
            this.password = s.password;
            this.synchronous = s.synchronous;
            this.cacheSize = s.cacheSize;
        }

        public Builder dataDir(Path dataDir) {
            this.dataDir = dataDir;
            return this;
        }

        public Builder jdbcUrl(String jdbcUrl) {
            this.jdbcUrl = jdbcUrl;
            return this;
        }

        public Builder username(String username) {
            this.username = username;
            return this;
        }

        public Builder password(Secret password) {
            this.password = password;
            return this;
        }

        public Builder synchronous(String synchronous) {
            this.synchronous = synchronous;
            return this;
        }

        public Builder cacheSize(long cacheSize) {
            this.cacheSize = cacheSize;
            return this;
        }

        public StorageSettings build() {
            return new StorageSettings(dataDir, jdbcUrl, username, password, synchronous, cacheSize);
        }
    }
}
