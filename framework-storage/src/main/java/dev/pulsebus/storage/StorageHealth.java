package dev.pulsebus.storage;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.Objects;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Whether the database answers, and is still the one opened: every call's outcome updates it, and a
 * background thread checks once a second, so {@link #up()} is a field read that never waits (a
 * {@code /health} under load is not database load) and is at most about a second behind.
 *
 * <p>The check pings the database and makes sure it is the one the storage opened:
 * <ul>
 * <li>SQLite: the file still has the identity it had at open ({@link BasicFileAttributes#fileKey()}, device
 *     and inode on Unix). A file deleted or replaced while open is <i>lost</i> for good: the open
 *     connections would go on writing to a file that is gone at the next start, so from then on every
 *     call fails ({@link #check()}) and {@link #up()} is false until a restart opens the file at the path
 *     again. Where the platform has no file key only deletion is noticed.</li>
 * <li>PostgreSQL, MariaDB: PulseBus's schema history is still there. A database recreated empty is
 *     migrated again ({@code remigrate}), and writes work again without a restart (a module's own
 *     migrations run again when the module is loaded again).</li>
 * </ul>
 */
final class StorageHealth implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(StorageHealth.class);
    private static final long PING_INTERVAL_MILLIS = 1000;

    /** Checks the database for the schema history and migrates it when it is gone. */
    interface SchemaCheck {
        /** True when the schema was missing and has been migrated again. */
        boolean restore(Connection c) throws SQLException;
    }

    private final DataSource dataSource;
    private final @Nullable Path sqliteFile;
    private final @Nullable Object fileKey;
    private final @Nullable SchemaCheck schema;
    private final Thread pinger;
    private volatile boolean up = true;
    private volatile boolean closed;
    private volatile @Nullable String lastError;
    /** Why the SQLite file opened is no longer the one at its path; null while it is. Never cleared. */
    private volatile @Nullable String lost;

    /**
     * Watches {@code dataSource}; {@code sqliteFile}: the SQLite file opened (null on other backends);
     * {@code schema}: the schema check of other backends (null on SQLite).
     */
    StorageHealth(DataSource dataSource, @Nullable Path sqliteFile, @Nullable SchemaCheck schema) {
        this.dataSource = dataSource;
        this.sqliteFile = sqliteFile;
        this.fileKey = sqliteFile == null ? null : fileKey(sqliteFile);
        this.schema = schema;
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
        return up && lost == null;
    }

    @Nullable String lastError() {
        String l = lost;
        return l != null ? l : up ? null : lastError;
    }

    /** Throws when the SQLite file was deleted or replaced while open: nothing may be written to it. */
    void check() throws SQLException {
        String l = lost;
        if (l != null) {
            throw new SQLException(l, "08006");
        }
    }

    private void pingLoop() {
        while (!closed) {
            try {
                Thread.sleep(PING_INTERVAL_MILLIS);
            } catch (InterruptedException e) {
                return;
            }
            checkFile();
            try (Connection c = dataSource.getConnection()) {
                if (!c.isValid(2)) {
                    failed(new SQLException("connection is not valid"));
                } else if (schema != null && schema.restore(c)) {
                    LOG.warn("Storage: PulseBus's schema history was gone (the database recreated empty?): "
                            + "migrated again");
                    up = true;
                } else {
                    up = true;
                }
            } catch (SQLException | RuntimeException e) {
                if (!closed) {
                    failed(e);
                }
            }
        }
    }

    /** Notes the SQLite file lost when it is no longer at its path with the identity it had at open. */
    private void checkFile() {
        Path file = sqliteFile;
        if (file == null || lost != null) {
            return;
        }
        boolean same;
        try {
            Object key = Files.readAttributes(file, BasicFileAttributes.class).fileKey();
            same = fileKey == null || Objects.equals(key, fileKey);
        } catch (NoSuchFileException e) {
            same = false;
        } catch (IOException e) {
            return; // cannot tell (permissions): the ping says whether it answers
        }
        if (!same) { // deleted, or deleted and made again empty by a new connection: the same to the data
            lost = "the SQLite file " + file + " was deleted or replaced while open: nothing more is written to it; "
                    + "restart to open the file at that path again";
            LOG.error("Storage: {}", lost);
        }
    }

    private static @Nullable Object fileKey(Path file) {
        try {
            return Files.readAttributes(file, BasicFileAttributes.class).fileKey();
        } catch (IOException e) {
            return null;
        }
    }

    @Override
    public void close() {
        closed = true;
        pinger.interrupt();
    }
}
