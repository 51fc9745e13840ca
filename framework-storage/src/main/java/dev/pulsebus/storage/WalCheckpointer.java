package dev.pulsebus.storage;

import dev.pulsebus.internal.FailureLog;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Moves SQLite's WAL checkpoints off the committing threads. By default a commit that takes the WAL past
 * 1000 pages copies them into the database file (and, with {@code synchronous=NORMAL}, syncs it) before it
 * returns, so every few hundred commits one of them (a durable say, a KV write) waits milliseconds for
 * work that is not its own. Here each pooled connection checkpoints only past {@link #SAFETY_NET_PAGES}
 * (should this thread fall behind), and this thread runs a {@code PASSIVE} checkpoint every
 * {@link #INTERVAL_MILLIS} ms on a connection of its own (not the pool's, so it never waits for one or
 * makes a query wait), which waits for no reader or writer. While nothing is committed (SQLite's
 * {@code data_version} stays the same) the interval doubles, up to {@link #IDLE_INTERVAL_MILLIS}; the first
 * commit brings it back. A failing checkpoint is logged through {@link FailureLog} (the first with its stack
 * trace, then a line a minute) and tried again; it does not make storage unhealthy: commits still succeed,
 * the WAL grows.
 */
final class WalCheckpointer implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(WalCheckpointer.class);
    static final long INTERVAL_MILLIS = 100;
    /** The longest wait between checkpoints of an idle database. */
    static final long IDLE_INTERVAL_MILLIS = 1600;
    /** Commits checkpoint themselves only once the WAL holds this many pages (64 MB of 4 KB pages). */
    static final int SAFETY_NET_PAGES = 16_384;
    static final String CONNECTION_INIT_SQL = "PRAGMA wal_autocheckpoint=" + SAFETY_NET_PAGES;

    private final DataSource unpooled;
    private final Thread thread;
    private volatile boolean closed;
    private volatile long checkpoints;
    /** SQLite's {@code data_version} at the last checkpoint: it changes with every commit of another connection. */
    private long dataVersion = -1;
    private boolean idle;
    private volatile long interval = INTERVAL_MILLIS;
    private @Nullable Connection connection; // this thread's (and tests') only
    private final FailureLog failures = new FailureLog(LOG, "SQLite WAL checkpoint");

    /** {@code unpooled}: the SQLite driver's own data source, each connection a new one. */
    WalCheckpointer(DataSource unpooled) {
        this.unpooled = unpooled;
        this.thread = Thread.ofPlatform().daemon().name("pulsebus-sqlite-checkpoint").start(this::loop);
    }

    private void loop() {
        while (!closed) {
            LockSupport.parkNanos(this, TimeUnit.MILLISECONDS.toNanos(interval));
            if (closed || Thread.interrupted()) {
                break;
            }
            checkpoint();
            interval = idle() ? Math.min(interval * 2, IDLE_INTERVAL_MILLIS) : INTERVAL_MILLIS; // only this thread
        }
        closeConnection();
    }

    /** One passive checkpoint; returns the WAL's pages not yet copied (-1 when it failed). */
    synchronized long checkpoint() {
        try {
            if (connection == null) {
                connection = unpooled.getConnection();
            }
            try (Statement st = connection.createStatement()) {
                long version;
                try (ResultSet rs = st.executeQuery("PRAGMA data_version")) {
                    version = rs.next() ? rs.getLong(1) : -1;
                }
                try (ResultSet rs = st.executeQuery("PRAGMA wal_checkpoint(PASSIVE)")) {
                    checkpoints++; // one writer at a time: this method is synchronized
                    long left = rs.next() ? rs.getLong(2) - rs.getLong(3) : 0;
                    idle = left == 0 && version == dataVersion;
                    dataVersion = version;
                    return left;
                }
            }
        } catch (SQLException | RuntimeException e) {
            closeConnection(); // a fresh one next time, whose data_version starts anew
            idle = false;
            dataVersion = -1;
            if (!closed) {
                failures.failed(e, "(tried again every " + INTERVAL_MILLIS + " ms)");
            }
            return -1;
        }
    }

    /** Whether the last checkpoint found nothing written since the one before. */
    private synchronized boolean idle() {
        return idle;
    }

    /** The wait before the next checkpoint, in milliseconds. */
    long interval() {
        return interval;
    }

    /** Checkpoints run so far. */
    long checkpoints() {
        return checkpoints;
    }

    private synchronized void closeConnection() {
        if (connection != null) {
            try {
                connection.close();
            } catch (SQLException ignored) {
                // closing: nothing to do about it
            }
            connection = null;
        }
    }

    @Override
    public void close() {
        closed = true;
        thread.interrupt();
        try {
            thread.join(TimeUnit.SECONDS.toMillis(5));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        closeConnection();
    }
}
