package dev.pulsebus.storage;

import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import org.jspecify.annotations.Nullable;

/**
 * One group-commit transaction of the KV writer, on the writer's long-lived {@link Session} (whose
 * statements stay prepared from batch to batch), with the clock reading of the batch.
 */
final class KvTransaction {

    private static final String LIVE = " AND (expires_at IS NULL OR expires_at > ?)";
    private static final String DELETE = "DELETE FROM pulsebus_kv WHERE ns = ? AND k = ?" + LIVE;
    private static final String SWAP =
            "UPDATE pulsebus_kv SET v = ?, expires_at = NULL WHERE ns = ? AND k = ? AND v = ?" + LIVE;
    private static final String DELETE_IF_EQUAL = "DELETE FROM pulsebus_kv WHERE ns = ? AND k = ? AND v = ?" + LIVE;
    private static final String PURGE_EXPIRED = "DELETE FROM pulsebus_kv WHERE ns = ? AND k = ? AND expires_at <= ?";
    private static final String EXISTS = "SELECT 1 FROM pulsebus_kv WHERE ns = ? AND k = ?" + LIVE;

    private final Session session;
    private final Dialect dialect;
    final long now;

    KvTransaction(Session session, Dialect dialect, long now) {
        this.session = session;
        this.dialect = dialect;
        this.now = now;
    }

    void put(String ns, String key, byte[] value, long expiresAt) throws SQLException {
        PreparedStatement upsert = session.prepare(dialect.upsert);
        upsert.setString(1, ns);
        upsert.setString(2, key);
        upsert.setBytes(3, value);
        if (expiresAt == Long.MAX_VALUE) {
            upsert.setNull(4, Types.BIGINT);
        } else {
            upsert.setLong(4, expiresAt);
        }
        upsert.executeUpdate();
    }

    /** Deletes the key; true when a live value was there. */
    boolean delete(String ns, String key) throws SQLException {
        PreparedStatement delete = session.prepare(DELETE);
        delete.setString(1, ns);
        delete.setString(2, key);
        delete.setLong(3, now);
        return delete.executeUpdate() > 0;
    }

    boolean compareAndSet(String ns, String key, byte @Nullable [] expected, byte @Nullable [] update)
            throws SQLException {
        if (expected != null && update != null) {
            PreparedStatement swap = session.prepare(SWAP);
            swap.setBytes(1, update);
            swap.setString(2, ns);
            swap.setString(3, key);
            swap.setBytes(4, expected);
            swap.setLong(5, now);
            return swap.executeUpdate() > 0;
        }
        if (expected != null) {
            PreparedStatement deleteIfEqual = session.prepare(DELETE_IF_EQUAL);
            deleteIfEqual.setString(1, ns);
            deleteIfEqual.setString(2, key);
            deleteIfEqual.setBytes(3, expected);
            deleteIfEqual.setLong(4, now);
            return deleteIfEqual.executeUpdate() > 0;
        }
        if (update != null) {
            // An expired row counts as absent: clear it, then insert only where nothing is.
            PreparedStatement purgeExpired = session.prepare(PURGE_EXPIRED);
            purgeExpired.setString(1, ns);
            purgeExpired.setString(2, key);
            purgeExpired.setLong(3, now);
            purgeExpired.executeUpdate();
            PreparedStatement insertIfAbsent = session.prepare(dialect.insertIfAbsent);
            insertIfAbsent.setString(1, ns);
            insertIfAbsent.setString(2, key);
            insertIfAbsent.setBytes(3, update);
            return insertIfAbsent.executeUpdate() > 0;
        }
        PreparedStatement exists = session.prepare(EXISTS);
        exists.setString(1, ns);
        exists.setString(2, key);
        exists.setLong(3, now);
        try (ResultSet rs = exists.executeQuery()) {
            return !rs.next();
        }
    }

    void commit() throws SQLException {
        session.connection.commit();
    }

    void rollbackQuietly() {
        try {
            session.connection.rollback();
        } catch (SQLException | RuntimeException ignored) {
            // The connection is broken; the session is dropped and the pool replaces it.
        }
    }
}
