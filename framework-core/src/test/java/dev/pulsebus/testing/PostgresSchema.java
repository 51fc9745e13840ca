package dev.pulsebus.testing;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.concurrent.ThreadLocalRandom;

/**
 * A schema of one test's own on a PostgreSQL server, dropped with everything in it on {@link #close()}.
 * Where no server answers, the test is skipped with the reason printed (or fails: {@link Required}).
 */
public final class PostgresSchema implements AutoCloseable {

    /** The server the tests use: {@code -Dpulsebus.test.postgres.url=...}, else the local one. */
    public static final String ADMIN = System.getProperty("pulsebus.test.postgres.url",
            "jdbc:postgresql://127.0.0.1:5432/test?user=postgres&connectTimeout=3");

    private final String name;

    private PostgresSchema(String name) {
        this.name = name;
    }

    /** Creates a new schema, or skips the calling test ({@code who} names it in the printed reason). */
    public static PostgresSchema create(String who) {
        String name = "pb_" + Long.toHexString(ThreadLocalRandom.current().nextLong() & Long.MAX_VALUE);
        try (Connection c = DriverManager.getConnection(ADMIN)) {
            c.createStatement().execute("CREATE SCHEMA " + name);
        } catch (SQLException e) {
            Required.service("postgres", who + ": no PostgreSQL at " + ADMIN + " (" + e.getMessage() + ")");
        }
        return new PostgresSchema(name);
    }

    public String name() {
        return name;
    }

    /** The JDBC URL of this schema, through {@code port} (a proxy's) instead of 5432 when given. */
    public String jdbcUrl(int port) {
        return ADMIN.replace("127.0.0.1:5432", "127.0.0.1:" + port) + "&currentSchema=" + name;
    }

    public String jdbcUrl() {
        return jdbcUrl(5432);
    }

    @Override
    public void close() throws SQLException {
        try (Connection c = DriverManager.getConnection(ADMIN)) {
            c.createStatement().execute("DROP SCHEMA " + name + " CASCADE");
        }
    }
}
