package dev.pulsebus.storage;

import com.zaxxer.hikari.HikariDataSource;
import dev.pulsebus.command.QuotaStore;
import dev.pulsebus.internal.Require;
import dev.pulsebus.kv.KvStore;
import dev.pulsebus.transcript.TranscriptStore;
import io.micrometer.core.instrument.MeterRegistry;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.Locale;
import java.util.Objects;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.flywaydb.core.api.FlywayException;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.sqlite.SQLiteConfig;
import org.sqlite.SQLiteDataSource;

/**
 * PulseBus's data layer: one connection pool (HikariCP) to one database, its schema (Flyway
 * migrations shipped in this jar, run by {@link Builder#open()}), and the stores on it: the
 * {@link #kv() KV store}, {@link #transcripts() transcripts} and {@link #quotas() quota counters}.
 *
 * <p>By default the database is the SQLite file {@code data/pulsebus.db} in WAL mode with
 * {@code synchronous=NORMAL}: a committed transaction survives the process being killed; a power loss
 * may lose the last commits (choose {@code FULL} to survive that too, at a cost per commit). A JDBC URL
 * of PostgreSQL or MariaDB/MySQL shares one data layer between several instances.
 *
 * <p>Opening fails with a {@link StorageException} when the database cannot be reached or migrated.
 * Once open, a database that goes away makes calls fail (with {@link dev.pulsebus.kv.KvException} or
 * {@link java.sql.SQLException}) and {@link #healthy()} false; nothing acknowledged is lost, and calls
 * succeed again when the database is back. {@link #close()} commits queued KV writes, then closes the
 * pool. Thread-safe.
 */
public final class Storage implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(Storage.class);

    /** The SQLite file's name inside the data directory. */
    public static final String SQLITE_FILE = "pulsebus.db";

    private final Dialect dialect;
    private final HikariDataSource dataSource;
    /** The modules' migrations applied, by owner, to apply again when the database is recreated empty. */
    private final java.util.concurrent.ConcurrentHashMap<String, ModuleMigrations> moduleMigrations =
            new java.util.concurrent.ConcurrentHashMap<>();
    private final StorageHealth health;
    private final @Nullable WalCheckpointer checkpointer;
    private final SessionPool sessions;
    private final JdbcKvStore kv;
    private final JdbcTranscriptStore transcripts;
    private final KvQuotaStore quotas;
    private final String description;

    private Storage(Builder b, Dialect dialect, HikariDataSource dataSource, SessionPool sessions, String description,
                    @Nullable Path sqliteFile) {
        this.dialect = dialect;
        this.dataSource = dataSource;
        this.description = description;
        this.health = new StorageHealth(dataSource, sqliteFile, dialect == Dialect.SQLITE ? null
                : c -> Schema.restore(c, dataSource, dialect) && remigrateModules());
        this.sessions = sessions;
        this.kv = new JdbcKvStore(dataSource, sessions, dialect, health, b);
        this.transcripts = new JdbcTranscriptStore(dataSource, sessions, dialect, health);
        this.quotas = new KvQuotaStore(kv.namespace(KvQuotaStore.NAMESPACE));
        // last: nothing after it can fail and leave its thread running
        this.checkpointer = dialect == Dialect.SQLITE ? new WalCheckpointer(dataSource.getDataSource()) : null;
    }

    public static Builder builder() {
        return new Builder();
    }

    /** The KV store: one namespace per module. */
    public KvStore kv() {
        return kv;
    }

    /** Transcript persistence, for a {@link dev.pulsebus.transcript.TranscriptWriter}. */
    public TranscriptStore transcripts() {
        return transcripts;
    }

    /**
     * A transcript seq source shared by every instance on this database (a database sequence), for
     * {@link dev.pulsebus.transcript.TranscriptWriter.Builder#seqSource} when several instances write to it.
     *
     * @throws StorageException on SQLite or MySQL, or when the database does not answer
     */
    public SharedSeq sharedSeq() {
        try {
            return SharedSeq.open(sessions, health, dialect, dataSource.getJdbcUrl() == null ? "" : dataSource.getJdbcUrl());
        } catch (java.sql.SQLException e) {
            throw new StorageException("cannot make the shared transcript sequence on " + description + ": "
                    + e.getMessage(), e);
        }
    }

    /** Quota counters that survive restarts, for {@link dev.pulsebus.command.CommandRouter.Builder#quotaStore}. */
    public QuotaStore quotas() {
        return quotas;
    }

    /** {@code sqlite}, {@code postgresql} or {@code mysql}. */
    public String backend() {
        return dialect.backend;
    }

    /** The SQLite checkpointer, or null on other backends (for tests). */
    @Nullable WalCheckpointer checkpointer() {
        return checkpointer;
    }

    /** The pool (for tests). */
    javax.sql.DataSource dataSource() {
        return dataSource;
    }

    /** True while the database answers: the last call or background ping (once a second) succeeded. Never waits. */
    public boolean healthy() {
        return health.up();
    }

    /** Why the storage is down, or null when it is up. */
    public @Nullable String lastError() {
        return health.lastError();
    }

    /**
     * Applies a module's own Flyway migrations from {@code location} (a classpath folder, e.g.
     * {@code "db/weather"}) found through {@code loader}, recording them in their own history table
     * {@code pulsebus_history_<owner>}. Already applied migrations are skipped; returns how many ran.
     *
     * @throws StorageException when a migration fails (the database is left as Flyway leaves it)
     */
    public int migrate(String owner, ClassLoader loader, String location) {
        // kept to run again if the database is recreated empty; weakly, so an unloaded module's classes go
        moduleMigrations.put(owner, new ModuleMigrations(new java.lang.ref.WeakReference<>(loader), location));
        try {
            return Schema.migrateModule(dataSource, owner, loader, location);
        } catch (FlywayException e) {
            throw new StorageException("migrations of '" + owner + "' from " + location + " failed on "
                    + description + ": " + e.getMessage(), e);
        }
    }

    /** A module's migrations as last applied: where, through which class loader (weakly held). */
    private record ModuleMigrations(java.lang.ref.WeakReference<ClassLoader> loader, String location) {
    }

    /**
     * After PulseBus's own schema was migrated again (the database recreated empty): the modules' migrations
     * applied before, each again, but those whose class loader is gone (the module unloaded). Returns true.
     */
    private boolean remigrateModules() {
        for (java.util.Map.Entry<String, ModuleMigrations> m : moduleMigrations.entrySet()) {
            ClassLoader loader = m.getValue().loader().get();
            if (loader == null) {
                moduleMigrations.remove(m.getKey(), m.getValue());
                continue;
            }
            try {
                int ran = Schema.migrateModule(dataSource, m.getKey(), loader, m.getValue().location());
                LOG.warn("Storage: migrated module {} again ({} migrations)", m.getKey(), ran);
            } catch (FlywayException e) {
                LOG.error("Storage: module {}'s migrations failed after the database was recreated: {}", m.getKey(),
                        e.getMessage());
            }
        }
        return true;
    }

    /** {@link #close(Duration)} with 10 s. */
    @Override
    public void close() {
        close(Duration.ofSeconds(10));
    }

    /**
     * Commits queued KV writes, then closes the connection pool. When the database does not take the
     * writes within {@code timeout} (it is down), those still queued fail their futures (none was
     * acknowledged) and the pool is closed anyway. Idempotent.
     */
    public void close(Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        health.close();
        kv.close(timeout.toNanos());
        if (checkpointer != null) {
            checkpointer.close();
        }
        // The pool's own shutdown waits seconds for a connection being opened to a database that is gone
        // (the driver's connect timeout) and for connections still out: it gets the time left, and what
        // it has not finished by then it finishes on its own thread (a daemon: it does not hold up an exit).
        Thread pool = Thread.ofPlatform().daemon().name("pulsebus-storage-close").start(() -> {
            sessions.close();
            dataSource.close();
        });
        try {
            if (!pool.join(Duration.ofNanos(Math.max(TimeUnit.MILLISECONDS.toNanos(1), deadline - System.nanoTime())))) {
                LOG.warn("The connection pool of {} did not close within the shutdown timeout; leaving it to close"
                        + " on its own", description);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public String toString() {
        return "Storage[" + description + "]";
    }

    /** Where and how to store. Defaults: SQLite in {@code data/}. */
    public static final class Builder {
        private static final Set<String> SYNC_MODES = Set.of("OFF", "NORMAL", "FULL", "EXTRA");

        Path dataDir = Path.of("data");
        @Nullable String jdbcUrl;
        @Nullable String username;
        @Nullable String password;
        int poolSize;
        Duration connectionTimeout = Duration.ofSeconds(5);
        String synchronous = "NORMAL";
        long cacheSize = 10_000;
        @Nullable Duration cacheTtl;
        int maxValueBytes = 1 << 20;
        int writeQueueCapacity = 16_384;
        int maxWriteBatch = 1024;
        Duration writeOverflowWait = Duration.ofMillis(100);
        Duration expirySweepInterval = Duration.ofMinutes(1);
        Clock clock = Clock.systemUTC();
        @Nullable MeterRegistry meterRegistry;

        private Builder() {
        }

        /** Where the SQLite file lives when no JDBC URL is given. Default {@code data}. */
        public Builder dataDir(Path dir) {
            this.dataDir = Objects.requireNonNull(dir, "dataDir");
            return this;
        }

        /** A {@code jdbc:postgresql:}, {@code jdbc:mariadb:}/{@code jdbc:mysql:} or {@code jdbc:sqlite:} URL. */
        public Builder jdbcUrl(@Nullable String url) {
            this.jdbcUrl = url == null || url.isBlank() ? null : url;
            return this;
        }

        public Builder username(@Nullable String username) {
            this.username = username;
            return this;
        }

        public Builder password(@Nullable String password) {
            this.password = password;
            return this;
        }

        /** Connections in the pool (at least 3: the KV writer, readers, health). Default 5 on SQLite, 8 otherwise. */
        public Builder poolSize(int size) {
            this.poolSize = Require.atLeast(size, 3, "poolSize");
            return this;
        }

        /** How long a call waits for a connection before failing. Default 5 s. */
        public Builder connectionTimeout(Duration timeout) {
            this.connectionTimeout = Require.positive(timeout, "connectionTimeout");
            return this;
        }

        /** SQLite's {@code synchronous}: OFF, NORMAL (default), FULL or EXTRA. */
        public Builder synchronous(String mode) {
            String m = mode.toUpperCase(Locale.ROOT);
            if (!SYNC_MODES.contains(m)) {
                throw new IllegalArgumentException("synchronous must be one of " + SYNC_MODES + ", was " + mode);
            }
            this.synchronous = m;
            return this;
        }

        /** Entries of the read cache per KV namespace; 0 turns the cache off. Default 10,000. */
        public Builder cacheSize(long entries) {
            if (entries < 0) {
                throw new IllegalArgumentException("cacheSize must be >= 0, was " + entries);
            }
            this.cacheSize = entries;
            return this;
        }

        /**
         * How long a cached read may be served before it is read again: the bound on staleness when
         * other instances write the same shared database. Default: forever on SQLite (this instance
         * owns the file), 1 s on PostgreSQL and MariaDB/MySQL.
         */
        public Builder cacheTtl(Duration ttl) {
            this.cacheTtl = Require.positive(ttl, "cacheTtl");
            return this;
        }

        /** The largest value in bytes. Default 1 MiB. */
        public Builder maxValueBytes(int bytes) {
            this.maxValueBytes = Require.atLeast(bytes, 1, "maxValueBytes");
            return this;
        }

        /** KV writes waiting for their commit, at most. Default 16,384. */
        public Builder writeQueueCapacity(int capacity) {
            this.writeQueueCapacity = Require.atLeast(capacity, 1, "writeQueueCapacity");
            return this;
        }

        /** KV writes in one group commit, at most. Default 1024. */
        public Builder maxWriteBatch(int writes) {
            this.maxWriteBatch = Require.atLeast(writes, 1, "maxWriteBatch");
            return this;
        }

        /** How long a write waits for room in a full queue before it fails. Default 100 ms. */
        public Builder writeOverflowWait(Duration wait) {
            this.writeOverflowWait = Require.notNegative(wait, "writeOverflowWait");
            return this;
        }

        /** How often expired KV rows are deleted. Default 1 min. */
        public Builder expirySweepInterval(Duration interval) {
            this.expirySweepInterval = Require.positive(interval, "expirySweepInterval");
            return this;
        }

        /** The clock of time-to-live. Default the system clock (UTC). */
        public Builder clock(Clock clock) {
            this.clock = Objects.requireNonNull(clock, "clock");
            return this;
        }

        /** Where KV and connection-pool metrics go. Default none. */
        public Builder meterRegistry(@Nullable MeterRegistry registry) {
            this.meterRegistry = registry;
            return this;
        }

        /**
         * Connects, migrates the schema to this version, and opens the stores.
         *
         * @throws StorageException when the database cannot be reached or migrated
         */
        public Storage open() {
            String url = jdbcUrl != null ? jdbcUrl : sqliteUrl();
            Dialect dialect = Dialect.of(url);
            String description = dialect.backend + " " + redact(url);
            // Configured in place: HikariDataSource(HikariConfig) copies the configuration field by field
            // through reflection, which costs a cold JVM some 20 ms of method-handle set-up.
            HikariDataSource ds = new HikariDataSource();
            ds.setPoolName("pulsebus");
            ds.setMaximumPoolSize(poolSize > 0 ? poolSize : dialect == Dialect.SQLITE ? 5 : 8);
            ds.setConnectionTimeout(Math.max(250, connectionTimeout.toMillis()));
            ds.setValidationTimeout(Math.max(250, Math.min(connectionTimeout.toMillis(), 2000)));
            if (dialect == Dialect.SQLITE) {
                // The driver's own data source, not the URL: DriverManager would load and initialise every
                // JDBC driver on the class path first (PostgreSQL and MariaDB too: about 30 ms in a cold JVM
                // here, measured as DriverManager.getConnection against the driver's own connect).
                Properties pragmas = new Properties();
                pragmas.setProperty("journal_mode", "WAL");
                pragmas.setProperty("synchronous", synchronous);
                pragmas.setProperty("busy_timeout", "10000");
                pragmas.setProperty("cache_size", "-2048");
                // A statement's journal in memory: a transcript batch is several multi-row INSERTs in one
                // transaction, and each INSERT kept the pages it changed in a journal that SQLite spills into
                // a temporary file past 64 KiB (opened, written and deleted per statement: 7,872 of the 12,987
                // writes the server made in 2 s of a flood, against 2,926 to the WAL). The server's own
                // queries sort little (a page of history, a list of chats), so temporary data fits in memory.
                pragmas.setProperty("temp_store", "MEMORY");
                SQLiteConfig sqliteConfig = new SQLiteConfig(pragmas);
                sqliteConfig.setGetGeneratedKeys(false); // none are read; the driver would match every update against a regex
                SQLiteDataSource sqlite = new SQLiteDataSource(sqliteConfig);
                sqlite.setUrl(url);
                ds.setDataSource(sqlite);
                ds.setConnectionInitSql(WalCheckpointer.CONNECTION_INIT_SQL);
            } else {
                ds.setJdbcUrl(url);
                ds.setUsername(username);
                ds.setPassword(password);
            }
            if (meterRegistry != null) {
                ds.setMetricRegistry(meterRegistry);
            }
            // Two connections stay out of the idle sessions: the KV writer's and one for health and migrations.
            SessionPool sessions = new SessionPool(ds, ds.getMaximumPoolSize() - 2,
                    () -> ds.getHikariPoolMXBean().getThreadsAwaitingConnection());
            boolean opened = false;
            try {
                try {
                    // The first connection starts the pool; it stays as the session the schema check uses.
                    sessions.release(sessions.borrow(), false);
                } catch (java.sql.SQLException | RuntimeException e) {
                    throw new StorageException("cannot connect to " + description + ": " + rootMessage(e), e);
                }
                try {
                    Schema.bringUpToDate(ds, sessions, dialect);
                    Storage storage = new Storage(this, dialect, ds, sessions, description,
                            dialect == Dialect.SQLITE ? sqliteFile(url) : null);
                    opened = true;
                    return storage;
                } catch (FlywayException | StorageException e) {
                    throw new StorageException("cannot migrate " + description + ": " + rootMessage(e), e);
                }
            } finally {
                if (!opened) {
                    sessions.close(); // before the pool: a connection still out would only be aborted (a no-op on SQLite)
                    ds.close();
                }
            }
        }

        private String sqliteUrl() {
            try {
                Files.createDirectories(dataDir);
            } catch (IOException e) {
                throw new StorageException("cannot create data directory " + dataDir.toAbsolutePath() + ": " + e, e);
            }
            SqliteNative.prepare(dataDir);
            return "jdbc:sqlite:" + dataDir.resolve(SQLITE_FILE).toAbsolutePath();
        }

        /** The file of a {@code jdbc:sqlite:} URL; null for an in-memory database. */
        private static @Nullable Path sqliteFile(String url) {
            String file = url.substring("jdbc:sqlite:".length());
            int query = file.indexOf('?');
            file = query < 0 ? file : file.substring(0, query);
            if (file.startsWith("file:")) {
                file = file.substring("file:".length());
            }
            return file.isEmpty() || file.contains(":memory:") || file.contains("mode=memory") ? null : Path.of(file);
        }

        private static String redact(String url) {
            return url.replaceAll("(?i)(password=)[^&;]*", "$1***");
        }

        private static String rootMessage(Throwable t) {
            Throwable root = t;
            while (root.getCause() != null && root.getCause() != root) {
                root = root.getCause();
            }
            return root == t ? String.valueOf(t.getMessage()) : t.getMessage() + " (" + root + ")";
        }
    }
}
