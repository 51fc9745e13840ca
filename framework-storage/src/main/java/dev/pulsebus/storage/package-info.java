/**
 * Storage for PulseBus: the KV store and transcript persistence, on SQLite (WAL) by default and on
 * PostgreSQL or MariaDB/MySQL for several instances sharing one data layer.
 *
 * <p>It may import {@code framework-core}'s packages, HikariCP, Flyway, Caffeine and the JDBC drivers;
 * never {@code dev.pulsebus.server} or the bench.
 */
@org.jspecify.annotations.NullMarked
package dev.pulsebus.storage;
