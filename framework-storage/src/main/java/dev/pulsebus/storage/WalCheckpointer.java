package dev.pulsebus.storage;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import javax.sql.DataSource;

/**
 * Moves SQLite's WAL checkpoints off the committing threads. By default a commit that takes the WAL past
 * 1000 pages copies them into the database file (and, with {@code synchronous=NORMAL}, syncs it) before it
 * returns, so every few hundred commits one of them (a durable say, a KV write) waits milliseconds for
 * work that is not its own. Here each connection checkpoints only past {@link #SAFETY_NET_PAGES} (should
 * this thread fall behind), and this thread runs a {@code PASSIVE} checkpoint every
 * {@link #INTERVAL_MILLIS} ms, which waits for no reader or writer.
 */
final class WalCheckpointer implements AutoCloseable {

    static final long INTERVAL_MILLIS = 100;
    /** Commits checkpoint themselves only once the WAL holds this many pages (64 MB of 4 KB pages). */
    static final int SAFETY_NET_PAGES = 16_384;
    static final String CONNECTION_INIT_SQL = "PRAGMA wal_autocheckpoint=" + SAFETY_NET_PAGES;

    private final DataSource dataSource;
    private final StorageHealth health;
    private final Thread thread;
    private volatile boolean closed;
    private volatile long checkpoints;

    WalCheckpointer(DataSource dataSource, StorageHealth health) {
        this.dataSource = dataSource;
        this.health = health;
        this.thread = Thread.ofPlatform().daemon().name("pulsebus-sqlite-checkpoint").start(this::loop);
    }

    private void loop() {
        while (!closed) {
            LockSupport.parkNanos(this, TimeUnit.MILLISECONDS.toNanos(INTERVAL_MILLIS));
            if (closed || Thread.interrupted()) {
                return;
            }
            checkpoint();
        }
    }

    /** One passive checkpoint; returns the WAL's pages not yet copied (-1 when it failed). */
    long checkpoint() {
        try (Connection c = dataSource.getConnection(); Statement st = c.createStatement();
             ResultSet rs = st.executeQuery("PRAGMA wal_checkpoint(PASSIVE)")) {
            checkpoints++; // only this thread and tests write it
            return rs.next() ? rs.getLong(2) - rs.getLong(3) : 0;
        } catch (SQLException | RuntimeException e) {
            if (!closed) {
                health.failed(e);
            }
            return -1;
        }
    }

    /** Checkpoints run so far. */
    long checkpoints() {
        return checkpoints;
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
    }
}
