/**
 * Storage for PulseBus: the KV store and transcript persistence, on SQLite (WAL) by default and on
 * PostgreSQL or MariaDB/MySQL for several instances sharing one data layer.
 *
 * <p>This module is laid out in the build so that its dependency on {@code framework-core} and its
 * place in the release are fixed; its implementation arrives with the storage work (issue 5).
 */
package dev.pulsebus.storage;
