package dev.pulsebus.bench.storage;

import dev.pulsebus.storage.Storage;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Where a storage benchmark keeps its data: a fresh folder under the run's temporary directory (SQLite),
 * or a fresh schema/database on the local PostgreSQL or MariaDB server, dropped by {@link #drop}.
 */
final class StorageFixture {

    static final String POSTGRES_URL = System.getProperty("pulsebus.bench.postgres.url",
            "jdbc:postgresql://127.0.0.1:5432/test?user=postgres");
    static final String MYSQL_URL = System.getProperty("pulsebus.bench.mysql.url",
            "jdbc:mariadb://127.0.0.1:3306/test?user=root");

    private final String backend;
    private final String name = "pb_bench_" + Long.toHexString(ThreadLocalRandom.current().nextLong() & Long.MAX_VALUE);
    private final Path dir;

    StorageFixture() throws IOException, SQLException {
        backend = System.getProperty("pulsebus.bench.backend", "sqlite");
        Path root = Path.of(System.getProperty("pulsebus.bench.dir", System.getProperty("java.io.tmpdir")));
        dir = Files.createDirectories(root.resolve(name));
        switch (backend) {
            case "sqlite" -> { }
            case "postgres" -> admin(POSTGRES_URL, "CREATE SCHEMA " + name);
            case "mysql" -> admin(MYSQL_URL, "CREATE DATABASE " + name);
            default -> throw new IllegalArgumentException("unknown backend " + backend);
        }
    }

    Storage.Builder builder() {
        return switch (backend) {
            case "postgres" -> Storage.builder().jdbcUrl(POSTGRES_URL + "&currentSchema=" + name);
            case "mysql" -> Storage.builder().jdbcUrl(MYSQL_URL.replace("/test?", "/" + name + "?"));
            default -> Storage.builder().dataDir(dir);
        };
    }

    void drop() throws SQLException {
        switch (backend) {
            case "postgres" -> admin(POSTGRES_URL, "DROP SCHEMA " + name + " CASCADE");
            case "mysql" -> admin(MYSQL_URL, "DROP DATABASE " + name);
            default -> { } // the run's temporary directory goes as a whole
        }
    }

    private static void admin(String url, String sql) throws SQLException {
        try (Connection c = DriverManager.getConnection(url); Statement st = c.createStatement()) {
            st.execute(sql);
        }
    }
}
