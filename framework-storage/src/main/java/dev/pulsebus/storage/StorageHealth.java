package dev.pulsebus.storage;

import java.sql.Connection;
import java.sql.SQLException;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;

/**
 * Whether the database answers: every call's outcome updates it, and a background thread pings
 * the database once a second, so {@link #up()} is a field read that never waits (a {@code /health}
 * under load is not database load) and is at most about a second behind.
 */
final class StorageHealth implements AutoCloseable {

    private static final long PING_INTERVAL_MILLIS = 1000;

    private final DataSource dataSource;
    private final Thread pinger;
    private volatile boolean up = true;
    private volatile boolean closed;
    private volatile @Nullable String lastError;

    StorageHealth(DataSource dataSource) {
        this.dataSource = dataSource;
        this.pinger = Thread.ofPlatform().daemon().name("pulsebus-storage-health").start(this::pingLoop);
    }

    void succeeded() {
        up = true;
    }

    void failed(Throwable t) {
        up = false;
        lastError = t.toString();
    }

    boolean up() {
        return up;
    }

    @Nullable String lastError() {
        return up ? null : lastError;
    }

    private void pingLoop() {
        while (!closed) {
            try {
                Thread.sleep(PING_INTERVAL_MILLIS);
            } catch (InterruptedException e) {
                return;
            }
            try (Connection c = dataSource.getConnection()) {
                if (c.isValid(2)) {
                    up = true;
                } else {
                    failed(new SQLException("connection is not valid"));
                }
            } catch (SQLException | RuntimeException e) {
                if (!closed) {
                    failed(e);
                }
            }
        }
    }

    @Override
    public void close() {
        closed = true;
        pinger.interrupt();
    }
}
