package dev.pulsebus.storage;

import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.function.LongSupplier;

/**
 * Transcript seqs from a database sequence, {@code pulsebus_transcript_seq}, so that every instance writing to
 * one database takes seqs that no other takes. Made when first asked for, starting after the highest stored seq
 * (and moved past it when records were stored without it). PostgreSQL and MariaDB; not SQLite (one process) nor
 * MySQL (no sequences).
 *
 * <p>Taken {@value #BLOCK} at a time, in one round trip, and handed out in ascending order within
 * {@link #MAX_AGE_MILLIS} of being taken (older ones are dropped): one instance's seqs always grow, but another
 * instance may be handing out lower ones meanwhile, taken at most that long ago. Where one instance takes over
 * what another wrote (a cluster's room moving to another instance) and its seqs must come after the other's,
 * {@link #renew} first: the next seq then comes from the database, after every seq taken until then.
 */
public final class SharedSeq implements LongSupplier {

    /** Seqs taken from the database in one round trip. */
    static final int BLOCK = 32;

    private final SessionPool sessions;
    private final StorageHealth health;
    private final String block;
    /** How long seqs taken ahead are handed out; older ones are dropped, so no seq is far behind the newest. */
    static final long MAX_AGE_MILLIS = 100;

    private final long[] taken = new long[BLOCK];
    private int next;
    private int size;
    private long takenAtNanos;
    /** {@link #MAX_AGE_MILLIS}, in nanos (tests may lengthen it). */
    long maxAgeNanos = java.util.concurrent.TimeUnit.MILLISECONDS.toNanos(MAX_AGE_MILLIS);

    private SharedSeq(SessionPool sessions, StorageHealth health, String block) {
        this.sessions = sessions;
        this.health = health;
        this.block = block;
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
        return new SharedSeq(sessions, health, pg
                ? "SELECT nextval('pulsebus_transcript_seq') FROM generate_series(1, " + BLOCK + ")"
                : "SELECT NEXTVAL(pulsebus_transcript_seq) FROM seq_1_to_" + BLOCK);
    }

    /** The next seq; throws {@link StorageException} when the database does not answer. */
    @Override
    public synchronized long getAsLong() {
        if (next == size || System.nanoTime() - takenAtNanos > maxAgeNanos) {
            take();
        }
        return taken[next++];
    }

    /** Forgets the seqs taken ahead: the next one is taken from the database, after every seq taken until now. */
    public synchronized void renew() {
        next = 0;
        size = 0;
    }

    private void take() {
        Session s = null;
        boolean failed = true;
        try {
            s = sessions.borrow();
            int n = 0;
            try (ResultSet rs = s.prepare(block).executeQuery()) {
                while (rs.next() && n < BLOCK) {
                    taken[n++] = rs.getLong(1);
                }
            }
            if (n == 0) {
                throw new SQLException("the sequence gave no value");
            }
            java.util.Arrays.sort(taken, 0, n);
            next = 0;
            size = n;
            takenAtNanos = System.nanoTime();
            failed = false;
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
