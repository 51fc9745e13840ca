package dev.pulsebus.storage;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.HashMap;
import java.util.Map;

/**
 * A pooled connection with its prepared statements kept for the connection's life, so a point read or
 * a batch pays for parsing its SQL once per connection instead of once per call (SQLite's driver has no
 * statement cache of its own). Used by one thread at a time.
 */
final class Session implements AutoCloseable {

    final Connection connection;
    private final Map<String, PreparedStatement> statements = new HashMap<>();

    Session(Connection connection) {
        this.connection = connection;
    }

    PreparedStatement prepare(String sql) throws SQLException {
        PreparedStatement ps = statements.get(sql);
        if (ps == null) {
            ps = connection.prepareStatement(sql);
            statements.put(sql, ps);
        }
        return ps;
    }

    /** Closes the statements and gives the connection back to the pool (which drops it if it broke). */
    @Override
    public void close() {
        for (PreparedStatement ps : statements.values()) {
            try {
                ps.close();
            } catch (SQLException ignored) {
                // the connection is going anyway
            }
        }
        statements.clear();
        try {
            connection.close();
        } catch (SQLException ignored) {
            // already closed or broken: the pool replaces it
        }
    }
}
