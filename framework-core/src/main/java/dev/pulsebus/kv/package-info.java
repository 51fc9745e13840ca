/**
 * The key-value store bot modules remember things in: {@link dev.pulsebus.kv.KvStore} hands out one
 * {@link dev.pulsebus.kv.Kv} namespace per module. {@code framework-storage} implements it on SQLite,
 * PostgreSQL and MariaDB/MySQL with group commit and a bounded read cache.
 *
 * <p>It may import the JDK, Jackson and {@code dev.pulsebus.internal}.
 */
@org.jspecify.annotations.NullMarked
package dev.pulsebus.kv;
