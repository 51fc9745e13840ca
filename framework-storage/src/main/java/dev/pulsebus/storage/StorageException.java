package dev.pulsebus.storage;

/**
 * Storage could not be opened or migrated: a bad JDBC URL, a data directory that cannot be created,
 * a database that refuses the connection, a migration that fails. The message says which and where.
 */
public final class StorageException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    public StorageException(String message) {
        super(message);
    }

    public StorageException(String message, Throwable cause) {
        super(message, cause);
    }
}
