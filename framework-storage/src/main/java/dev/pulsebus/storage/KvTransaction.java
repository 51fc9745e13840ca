package dev.pulsebus.storage;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import org.jspecify.annotations.Nullable;

/**
 * One group-commit transaction of the KV writer: the connection, the clock reading of the batch and the
 * statements, each prepared once per transaction and only when an operation needs it.
 */
final class KvTransaction implements AutoCloseable {

    private static final String LIVE = " AND (expires_at IS NULL OR expires_at > ?)";

    private final Connection connection;
    private final Dialect dialect;
    final long now;
    private @Nullable PreparedStatement upsert;
    private @Nullable PreparedStatement delete;
    private @Nullable PreparedStatement swap;
    private @Nullable PreparedStatement deleteIfEqual;
    private @Nullable PreparedStatement purgeExpired;
    private @Nullable PreparedStatement insertIfAbsent;
    private @Nullable PreparedStatement exists;

    KvTransaction(Connection connection, Dialect dialect, long now) throws SQLException {
        this.connection = connection;
        this.dialect = dialect;
        this.now = now;
        connection.setAutoCommit(false);
    }

    void put(String ns, String key, byte[] value, long expiresAt) throws SQLException {
        if (upsert == null) {
            upsert = connection.prepareStatement(dialect.upsert);
        }
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
        if (delete == null) {
            delete = connection.prepareStatement("DELETE FROM pulsebus_kv WHERE ns = ? AND k = ?" + LIVE);
        }
        delete.setString(1, ns);
        delete.setString(2, key);
        delete.setLong(3, now);
        return delete.executeUpdate() > 0;
    }

    boolean compareAndSet(String ns, String key, byte @Nullable [] expected, byte @Nullable [] update)
            throws SQLException {
        if (expected != null && update != null) {
            if (swap == null) {
                swap = connection.prepareStatement(
                        "UPDATE pulsebus_kv SET v = ?, expires_at = NULL WHERE ns = ? AND k = ? AND v = ?" + LIVE);
            }
            swap.setBytes(1, update);
            swap.setString(2, ns);
            swap.setString(3, key);
            swap.setBytes(4, expected);
            swap.setLong(5, now);
            return swap.executeUpdate() > 0;
        }
        if (expected != null) {
            if (deleteIfEqual == null) {
                deleteIfEqual = connection.prepareStatement(
                        "DELETE FROM pulsebus_kv WHERE ns = ? AND k = ? AND v = ?" + LIVE);
            }
            deleteIfEqual.setString(1, ns);
            deleteIfEqual.setString(2, key);
            deleteIfEqual.setBytes(3, expected);
            deleteIfEqual.setLong(4, now);
            return deleteIfEqual.executeUpdate() > 0;
        }
        if (update != null) {
            // An expired row counts as absent: clear it, then insert only where nothing is.
            if (purgeExpired == null) {
                purgeExpired = connection.prepareStatement(
                        "DELETE FROM pulsebus_kv WHERE ns = ? AND k = ? AND expires_at <= ?");
                insertIfAbsent = connection.prepareStatement(dialect.insertIfAbsent);
            }
            purgeExpired.setString(1, ns);
            purgeExpired.setString(2, key);
            purgeExpired.setLong(3, now);
            purgeExpired.executeUpdate();
            insertIfAbsent.setString(1, ns);
            insertIfAbsent.setString(2, key);
            insertIfAbsent.setBytes(3, update);
            return insertIfAbsent.executeUpdate() > 0;
        }
        if (exists == null) {
            exists = connection.prepareStatement("SELECT 1 FROM pulsebus_kv WHERE ns = ? AND k = ?" + LIVE);
        }
        exists.setString(1, ns);
        exists.setString(2, key);
        exists.setLong(3, now);
        try (ResultSet rs = exists.executeQuery()) {
            return !rs.next();
        }
    }

    void commit() throws SQLException {
        connection.commit();
    }

    void rollbackQuietly() {
        try {
            connection.rollback();
        } catch (SQLException | RuntimeException ignored) {
            // The connection is broken; the pool evicts it.
        }
    }

    @Override
    public void close() throws SQLException {
        for (PreparedStatement ps : new PreparedStatement[] {upsert, delete, swap, deleteIfEqual, purgeExpired,
                insertIfAbsent, exists}) {
            if (ps != null) {
                ps.close();
            }
        }
    }
}
