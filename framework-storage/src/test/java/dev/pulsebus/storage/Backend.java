package dev.pulsebus.storage;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Comparator;
import java.util.concurrent.ThreadLocalRandom;
import java.util.stream.Stream;

/**
 * The three backends every storage test runs against. SQLite always runs (a file in a temp folder);
 * PostgreSQL and MariaDB run against the servers on 127.0.0.1 (CI starts them), each test in a fresh
 * schema or database that is dropped afterwards. When a server is unreachable its tests are skipped,
 * and the reason is printed once. Override the admin URLs with -Dpulsebus.test.postgres.url / .mysql.url.
 */
enum Backend {
    SQLITE(null),
    POSTGRESQL(System.getProperty("pulsebus.test.postgres.url",
            "jdbc:postgresql://127.0.0.1:5432/test?user=postgres&connectTimeout=3")),
    MYSQL(System.getProperty("pulsebus.test.mysql.url",
            "jdbc:mariadb://127.0.0.1:3306/test?user=root&connectTimeout=3000"));

    private final String adminUrl;
    private volatile String unavailable;
    private volatile boolean probed;

    Backend(String adminUrl) {
        this.adminUrl = adminUrl;
    }

    /** A fresh, empty place to store data in; skips the test when the server is unreachable. */
    Place newPlace() {
        assumeAvailable();
        String name = "pb_" + Long.toHexString(ThreadLocalRandom.current().nextLong() & Long.MAX_VALUE);
        try {
            return switch (this) {
                case SQLITE -> {
                    Path dir = Files.createTempDirectory("pulsebus-storage-");
                    yield new Place(this, dir, null, () -> deleteTree(dir));
                }
                case POSTGRESQL -> {
                    admin("CREATE SCHEMA " + name);
                    String url = adminUrl + "&currentSchema=" + name;
                    yield new Place(this, null, url, () -> admin("DROP SCHEMA " + name + " CASCADE"));
                }
                case MYSQL -> {
                    admin("CREATE DATABASE " + name);
                    String url = adminUrl.replace("/test?", "/" + name + "?");
                    yield new Place(this, null, url, () -> admin("DROP DATABASE " + name));
                }
            };
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    void assumeAvailable() {
        if (this == SQLITE) {
            return;
        }
        if (!probed) {
            synchronized (this) {
                if (!probed) {
                    try (Connection c = DriverManager.getConnection(adminUrl)) {
                        unavailable = c.isValid(3) ? null : this + " tests skipped: " + adminUrl + " does not answer";
                    } catch (SQLException e) {
                        unavailable = this + " tests skipped: no server at " + adminUrl + " (" + e.getMessage()
                                + "). .ci/run starts it; see README.";
                    }
                    probed = true;
                }
            }
        }
        dev.pulsebus.testing.Required.service(this == POSTGRESQL ? "postgres" : "mariadb", unavailable);
    }

    private void admin(String sql) {
        try (Connection c = DriverManager.getConnection(adminUrl); Statement st = c.createStatement()) {
            st.execute(sql);
        } catch (SQLException e) {
            throw new IllegalStateException(sql + " on " + this + ": " + e.getMessage(), e);
        }
    }

    private static void deleteTree(Path dir) {
        try (Stream<Path> files = Files.walk(dir)) {
            files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException ignored) {
            // A temp folder left behind is harmless.
        }
    }

    /** Where one test stores: a data directory (SQLite) or a JDBC URL; {@link #close} removes it. */
    record Place(Backend backend, Path dataDir, String jdbcUrl, Runnable cleanup) implements AutoCloseable {

        Storage.Builder builder() {
            Storage.Builder b = Storage.builder().connectionTimeout(java.time.Duration.ofSeconds(3));
            return jdbcUrl != null ? b.jdbcUrl(jdbcUrl) : b.dataDir(dataDir);
        }

        Storage open() {
            return builder().open();
        }

        /** A connection of the test's own, outside the store's pool and cache. */
        Connection connect() throws SQLException {
            return DriverManager.getConnection(jdbcUrl != null ? jdbcUrl
                    : "jdbc:sqlite:" + dataDir.resolve(Storage.SQLITE_FILE));
        }

        /** PostgreSQL, MariaDB: drops the test's schema or database with all in it and creates it again, empty. */
        void recreateEmpty() {
            java.util.regex.Matcher m = java.util.regex.Pattern.compile(backend == POSTGRESQL ? "currentSchema=(pb_\\w+)"
                    : "/(pb_\\w+)\\?").matcher(jdbcUrl);
            if (!m.find()) {
                throw new IllegalStateException("no test schema in " + jdbcUrl);
            }
            String kind = backend == POSTGRESQL ? "SCHEMA " : "DATABASE ";
            backend.admin("DROP " + kind + m.group(1) + (backend == POSTGRESQL ? " CASCADE" : ""));
            backend.admin("CREATE " + kind + m.group(1));
        }

        @Override
        public void close() {
            cleanup.run();
        }
    }
}
