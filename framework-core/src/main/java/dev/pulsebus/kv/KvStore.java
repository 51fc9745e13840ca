package dev.pulsebus.kv;

/**
 * Hands out {@link Kv} namespaces, one per module (or any other owner): keys of two namespaces never
 * meet. Thread-safe.
 */
public interface KvStore {

    /**
     * The namespace {@code name} (1 to 64 characters of {@code A-Z a-z 0-9 . _ -}); the same handle for
     * the same name.
     *
     * @throws KvException when the name is not allowed or the store is closed
     */
    Kv namespace(String name);

    /** True while the store's database answers; false after a failed call until one succeeds again. */
    boolean healthy();
}
