package dev.pulsebus.storage;

import java.sql.SQLException;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.function.IntSupplier;
import javax.sql.DataSource;

/**
 * Idle {@link Session}s, at most {@code capacity} (the rest of the connection pool stays free for
 * migrations and health checks). A session that saw an error is closed, not kept: its connection may
 * be broken, and the connection pool replaces it. When anyone waits in the connection pool for a
 * connection, a released session gives its connection back instead of idling, so sessions never starve
 * the pool's other users.
 */
final class SessionPool implements AutoCloseable {

    private final DataSource dataSource;
    private final IntSupplier waiting;
    private final ArrayBlockingQueue<Session> idle;
    private volatile boolean closed;

    SessionPool(DataSource dataSource, int capacity, IntSupplier waiting) {
        this.dataSource = dataSource;
        this.waiting = waiting;
        this.idle = new ArrayBlockingQueue<>(Math.max(1, capacity));
    }

    Session borrow() throws SQLException {
        Session s = idle.poll();
        return s != null ? s : new Session(dataSource.getConnection());
    }

    void release(Session s, boolean failed) {
        if (failed || closed || waiting.getAsInt() > 0 || !idle.offer(s)) {
            s.close();
        }
    }

    @Override
    public void close() {
        closed = true;
        for (Session s; (s = idle.poll()) != null; ) {
            s.close();
        }
    }
}
