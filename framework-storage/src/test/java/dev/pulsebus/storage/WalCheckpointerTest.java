package dev.pulsebus.storage;

import static org.assertj.core.api.Assertions.assertThat;

import dev.pulsebus.kv.Kv;
import dev.pulsebus.testing.Await;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** SQLite's WAL is checkpointed by a background thread, not by the commits of says and KV writes. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class WalCheckpointerTest {

    @TempDir
    Path dir;

    @Test
    void commitsLeaveCheckpointsToTheBackgroundThread() throws Exception {
        try (Storage storage = Storage.builder().dataDir(dir).open()) {
            WalCheckpointer checkpointer = storage.checkpointer();
            assertThat(checkpointer).isNotNull();
            try (Connection c = storage.dataSource().getConnection();
                 ResultSet rs = c.createStatement().executeQuery("PRAGMA wal_autocheckpoint")) {
                rs.next();
                assertThat(rs.getInt(1)).isEqualTo(WalCheckpointer.SAFETY_NET_PAGES);
            }
            Kv kv = storage.kv().namespace("m");
            for (int i = 0; i < 300; i++) {
                kv.set("k" + i, "x".repeat(2000)); // about 150 pages of WAL
            }
            long before = checkpointer.checkpoints();
            Await.until(Duration.ofSeconds(20), Duration.ofMillis(20), () -> checkpointer.checkpoints() >= before + 2);
            assertThat(checkpointer.checkpoints()).isGreaterThanOrEqualTo(before + 2);
            assertThat(checkpointer.checkpoint()).isZero(); // every page of the WAL is in the database file
            assertThat(kv.get("k299")).isEqualTo("x".repeat(2000));
        }
    }

    @Test
    void anIdleDatabaseIsCheckpointedLessOftenUntilTheNextWrite() throws Exception {
        try (Storage storage = Storage.builder().dataDir(dir).open()) {
            WalCheckpointer checkpointer = storage.checkpointer();
            Kv kv = storage.kv().namespace("m");
            kv.set("k", "v");
            assertThat(Await.until(Duration.ofSeconds(20),
                    () -> checkpointer.interval() == WalCheckpointer.IDLE_INTERVAL_MILLIS)).as("backed off").isTrue();

            kv.set("k", "w");

            assertThat(Await.until(Duration.ofSeconds(20),
                    () -> checkpointer.interval() < WalCheckpointer.IDLE_INTERVAL_MILLIS))
                    .as("back to shorter intervals after a write").isTrue();
        }
    }

    @Test
    void postgresqlHasNone() {
        try (Backend.Place place = Backend.POSTGRESQL.newPlace(); Storage storage = place.open()) {
            assertThat(storage.checkpointer()).isNull();
        }
    }
}
