package dev.pulsebus.storage;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;

/**
 * Whether the database answers: every call's outcome updates it, and {@link #check} pings the database
 * at most once a second (so {@code /health} under load does not become database load).
 */
final class StorageHealth {

    private static final long PING_INTERVAL_NANOS = TimeUnit.SECONDS.toNanos(1);

    private final DataSource dataSource;
    private final AtomicLong lastPing = new AtomicLong(System.nanoTime() - PING_INTERVAL_NANOS);
    private volatile boolean up = true;
    private volatile @Nullable String lastError;

    StorageHealth(DataSource dataSource) {
        this.dataSource = dataSource;
    }

    void succeeded() {
        up = true;
    }

    void failed(Throwable t) {
        up = false;
        lastError = t.toString();
    }

    /** Up or down now, pinging the database when the last ping is over a second old. */
    boolean check() {
        long last = lastPing.get();
        long now = System.nanoTime();
        if (now - last >= PING_INTERVAL_NANOS && lastPing.compareAndSet(last, now)) {
            try (Connection c = dataSource.getConnection()) {
                if (c.isValid(2)) {
                    up = true;
                } else {
                    failed(new SQLException("connection is not valid"));
                }
            } catch (SQLException | RuntimeException e) {
                failed(e);
            }
        }
        return up;
    }

    @Nullable String lastError() {
        return up ? null : lastError;
    }
}
