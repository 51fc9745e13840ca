package dev.pulsebus.storage;

import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.function.LongSupplier;

/**
 * Transcript seqs from a database sequence, {@code pulsebus_transcript_seq}, so that every instance writing to
 * one database takes seqs that no other takes. Made when first asked for, starting after the highest stored seq
 * (and moved past it when records were stored without it). PostgreSQL and MariaDB; not SQLite (one process) nor
 * MySQL (no sequences). One round trip per seq, on a kept session.
 */
final class SharedSeq implements LongSupplier {

    private final SessionPool sessions;
    private final StorageHealth health;
    private final String next;

    private SharedSeq(SessionPool sessions, StorageHealth health, String next) {
        this.sessions = sessions;
        this.health = health;
        this.next = next;
    }

    static SharedSeq open(SessionPool sessions, StorageHealth health, Dialect dialect, String url) throws SQLException {
        if (dialect == Dialect.SQLITE || url.toLowerCase(java.util.Locale.ROOT).startsWith("jdbc:mysql:")) {
            throw new StorageException("a transcript sequence shared by several instances needs PostgreSQL or MariaDB, "
                    + "not " + (dialect == Dialect.SQLITE ? "SQLite" : "MySQL"));
        }
        boolean pg = dialect == Dialect.POSTGRESQL;
        String next = pg ? "SELECT nextval('pulsebus_transcript_seq')" : "SELECT NEXTVAL(pulsebus_transcript_seq)";
        Session s = sessions.borrow();
        boolean failed = true;
        try (Statement st = s.connection.createStatement()) {
            long max;
            try (ResultSet rs = st.executeQuery("SELECT COALESCE(MAX(seq), 0) FROM pulsebus_transcript")) {
                rs.next();
                max = rs.getLong(1);
            }
            st.execute("CREATE SEQUENCE IF NOT EXISTS pulsebus_transcript_seq START WITH " + (max + 1));
            long at;
            try (ResultSet rs = st.executeQuery(next)) {
                rs.next();
                at = rs.getLong(1);
            }
            if (at <= max) { // records were stored without the sequence (the cluster was off): move past them
                st.execute(pg ? "SELECT setval('pulsebus_transcript_seq', " + max + ")"
                        : "SELECT SETVAL(pulsebus_transcript_seq, " + max + ")");
            }
            failed = false;
        } finally {
            sessions.release(s, failed);
        }
        return new SharedSeq(sessions, health, next);
    }

    /** The next seq; throws {@link StorageException} when the database does not answer. */
    @Override
    public long getAsLong() {
        Session s = null;
        boolean failed = true;
        try {
            s = sessions.borrow();
            try (ResultSet rs = s.prepare(next).executeQuery()) {
                rs.next();
                long seq = rs.getLong(1);
                failed = false;
                return seq;
            }
        } catch (SQLException e) {
            health.failed(e);
            throw new StorageException("no transcript seq: the database does not answer (" + e.getMessage() + ")", e);
        } finally {
            if (s != null) {
                sessions.release(s, failed);
            }
        }
    }
}
