package dev.pulsebus.storage;

import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Locale;
import javax.sql.DataSource;
import org.flywaydb.core.Flyway;

/**
 * The database's schema: PulseBus's own Flyway migrations (shipped in this jar, one folder per dialect)
 * and the modules' migrations, each in its own history table.
 */
final class Schema {

    /** The newest migration shipped ({@code V<n>__*.sql} in every dialect's folder); a test keeps them equal. */
    static final String VERSION = "1";
    static final String HISTORY = "pulsebus_schema_history";

    private Schema() {
    }

    /**
     * Migrates the database to {@link #VERSION} unless its history already records it.
     *
     * @throws org.flywaydb.core.api.FlywayException when a migration fails
     */
    static void bringUpToDate(DataSource ds, SessionPool sessions, Dialect dialect) {
        if (!upToDate(sessions)) {
            migrate(ds, dialect);
        }
    }

    private static void migrate(DataSource ds, Dialect dialect) {
        Flyway.configure(Storage.class.getClassLoader()).dataSource(ds).locations(dialect.migrations)
                .table(HISTORY).load().migrate();
    }

    /**
     * Migrates the database again when PulseBus's schema history is gone from it (a database or schema
     * dropped and recreated empty while running): true when it did. Asked on {@code c}, a connection that
     * answers; the migration runs on connections of {@code ds}.
     *
     * @throws SQLException when the database does not answer the question
     */
    static boolean restore(java.sql.Connection c, DataSource ds, Dialect dialect) throws SQLException {
        try (java.sql.Statement st = c.createStatement()) {
            st.executeQuery("SELECT 1 FROM " + HISTORY + " WHERE 1 = 0").close();
            return false;
        } catch (SQLException e) {
            // 42P01: PostgreSQL's undefined_table; 42S02: MariaDB's table not found
            if (!"42P01".equals(e.getSQLState()) && !"42S02".equals(e.getSQLState())) {
                throw e;
            }
        }
        try {
            migrate(ds, dialect);
        } catch (org.flywaydb.core.api.FlywayException e) {
            throw new SQLException("PulseBus's schema is gone and cannot be migrated again: " + e.getMessage(), e);
        }
        return true;
    }

    /**
     * Applies a module's migrations from {@code location}, found through {@code loader}, recorded in
     * {@code pulsebus_history_<owner>}; returns how many ran.
     *
     * @throws org.flywaydb.core.api.FlywayException when a migration fails
     */
    static int migrateModule(DataSource ds, String owner, ClassLoader loader, String location) {
        String table = "pulsebus_history_" + owner.toLowerCase(Locale.ROOT).replaceAll("[^a-z0-9_]", "_");
        return Flyway.configure(loader).dataSource(ds).locations("classpath:" + location)
                .table(table).baselineOnMigrate(true).baselineVersion("0")
                .load().migrate().migrationsExecuted;
    }

    /**
     * Whether the schema history already records {@link #VERSION} as applied: then Flyway (some 400
     * classes and a classpath scan) is not loaded at all, which is most of a restart's storage cost. Asked
     * on a session, which stays open for the stores: the first connection handed back to HikariCP makes
     * its closed-connection stand-in, a JDK proxy class, costly in a cold JVM.
     */
    private static boolean upToDate(SessionPool sessions) {
        Session s = null;
        boolean failed = true;
        try {
            s = sessions.borrow();
            PreparedStatement ps = s.prepare("SELECT COUNT(*) FROM " + HISTORY + " WHERE version = ? AND success");
            ps.setString(1, VERSION);
            try (ResultSet rs = ps.executeQuery()) {
                boolean applied = rs.next() && rs.getInt(1) > 0;
                failed = false;
                return applied;
            }
        } catch (SQLException e) {
            return false; // no history yet (a new database): Flyway creates it
        } finally {
            if (s != null) {
                sessions.release(s, failed);
            }
        }
    }
}
