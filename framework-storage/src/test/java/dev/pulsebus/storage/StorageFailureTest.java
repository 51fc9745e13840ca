package dev.pulsebus.storage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.pulsebus.event.ChatRef;
import dev.pulsebus.event.Message;
import dev.pulsebus.kv.Kv;
import dev.pulsebus.kv.KvException;
import dev.pulsebus.testing.Await;
import dev.pulsebus.testing.OpenFiles;
import dev.pulsebus.testing.TcpProxy;
import dev.pulsebus.transcript.TranscriptRecord;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardWatchEventKinds;
import java.nio.file.WatchService;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** Opening errors, the SQLite file's mode, and a database that goes away and comes back. */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class StorageFailureTest {

    @TempDir
    Path dir;

    @Test
    void theDefaultIsASqliteFileInWalModeUnderTheDataDirectory() throws Exception {
        try (Storage storage = Storage.builder().dataDir(dir.resolve("data")).open()) {
            assertThat(storage.backend()).isEqualTo("sqlite");
            storage.kv().namespace("m").set("k", "v");
            assertThat(storage.healthy()).isTrue();
            assertThat(dir.resolve("data").resolve(Storage.SQLITE_FILE)).exists();
            try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + dir.resolve("data/pulsebus.db"));
                 ResultSet rs = c.createStatement().executeQuery("PRAGMA journal_mode")) {
                rs.next();
                assertThat(rs.getString(1)).isEqualToIgnoringCase("wal");
            }
        }
    }

    @Test
    void aStatementsJournalStaysInMemoryAndNoTemporaryFileIsWritten() throws Exception {
        Path tmp = Files.createDirectories(dir.resolve("sqlite-tmp"));
        try (Connection global = DriverManager.getConnection("jdbc:sqlite::memory:");
             WatchService watch = tmp.getFileSystem().newWatchService();
             Storage storage = Storage.builder().dataDir(dir.resolve("data")).open()) {
            long seq = 0;
            for (int b = 0; b < 10; b++) { // 10,000 rows over 200 chats: the chat index has pages to change
                seq = appendSpread(storage, seq, 1000);
            }
            // SQLite's directory for temporary files is the process's own: here for this test, then back
            global.createStatement().execute("PRAGMA temp_store_directory = '" + tmp + "'");
            try {
                tmp.register(watch, StandardWatchEventKinds.ENTRY_CREATE);
                for (int b = 0; b < 5; b++) { // 5 batches of 5 INSERTs, each one spread over the chat index
                    seq = appendSpread(storage, seq, 500);
                }
                try (Connection c = storage.dataSource().getConnection()) {
                    rewriteAll(c);
                }
                assertThat(watch.poll(1, TimeUnit.SECONDS)).as("a file SQLite made for a statement").isNull();
                // The same statements with SQLite's default: the journal spills into a file there.
                try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + dir.resolve("data/pulsebus.db"))) {
                    rewriteAll(c);
                }
                assertThat(watch.poll(10, TimeUnit.SECONDS)).as("the default's temporary file").isNotNull();
            } finally {
                global.createStatement().execute("PRAGMA temp_store_directory = ''");
            }
        }
    }

    /** Appends {@code n} transcript records after {@code seq}, one chat of 200 after another; the last seq. */
    private static long appendSpread(Storage storage, long seq, int n) throws Exception {
        List<TranscriptRecord> batch = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            long s = ++seq;
            batch.add(new TranscriptRecord(s, ChatRef.group("qq", "g" + s % 200), "u", java.time.Instant.EPOCH,
                    "m" + s, Message.text("x".repeat(200)), false));
        }
        storage.transcripts().append(batch);
        return seq;
    }

    /** In one transaction, a statement, then one that changes every transcript row: past SQLite's 64 KiB. */
    private static void rewriteAll(Connection c) throws SQLException {
        c.setAutoCommit(false);
        try (Statement st = c.createStatement()) {
            st.executeUpdate("UPDATE pulsebus_transcript SET outbound = 1 - outbound WHERE seq = 1");
            st.executeUpdate("UPDATE pulsebus_transcript SET user_id = user_id || 'v'");
            c.commit();
        } finally {
            c.setAutoCommit(true);
        }
    }

    @Test
    void aMigrationThatFailsIsAClearErrorAndLeavesNoConnectionOpen() throws Exception {
        assumeTrue(OpenFiles.supported(), "open files are read from /proc/self/fd (Linux)");
        Path data = dir.resolve("data");
        try (Storage storage = Storage.builder().dataDir(data).open()) {
            storage.kv().namespace("m").set("k", "v");
        }
        // The history forgets the newest version, so the open migrates, and the migration fails on the
        // tables it finds there: after the open's first connection was kept as a session.
        try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + data.resolve(Storage.SQLITE_FILE))) {
            assertThat(c.createStatement().executeUpdate("DELETE FROM " + Schema.HISTORY + " WHERE version = '"
                    + Schema.VERSION + "'")).isEqualTo(1);
        }
        assertThat(OpenFiles.under(data)).isEmpty();
        assertThatThrownBy(() -> Storage.builder().dataDir(data).open())
                .isInstanceOf(StorageException.class)
                .hasMessageContaining("cannot migrate");
        assertThat(OpenFiles.under(data)).as("database files this process still has open").isEmpty();
        try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + data.resolve(Storage.SQLITE_FILE));
             ResultSet rs = c.createStatement().executeQuery("SELECT COUNT(*) FROM pulsebus_kv")) {
            rs.next();
            assertThat(rs.getInt(1)).as("the data is still there").isEqualTo(1);
        }
    }

    @Test
    void aBadJdbcUrlNamesWhatIsSupported() {
        assertThatThrownBy(() -> Storage.builder().jdbcUrl("jdbc:h2:mem:x").open())
                .isInstanceOf(StorageException.class)
                .hasMessageContaining("jdbc:sqlite:, jdbc:postgresql: or jdbc:mariadb:");
    }

    @Test
    void aDataDirectoryThatCannotBeCreatedIsAClearError() throws Exception {
        Path file = Files.writeString(dir.resolve("not-a-dir"), "x");
        assertThatThrownBy(() -> Storage.builder().dataDir(file.resolve("data")).open())
                .isInstanceOf(StorageException.class)
                .hasMessageContaining("cannot create data directory");
    }

    @Test
    void anUnreachableDatabaseAtStartIsAClearErrorWithoutThePassword() throws Exception {
        int port;
        try (ServerSocket s = new ServerSocket(0)) {
            port = s.getLocalPort();
        }
        assertThatThrownBy(() -> Storage.builder()
                        .jdbcUrl("jdbc:postgresql://127.0.0.1:" + port + "/test?user=x&password=secret")
                        .connectionTimeout(Duration.ofMillis(500)).open())
                .isInstanceOf(StorageException.class)
                .hasMessageContaining("cannot connect to postgresql")
                .hasMessageContaining("password=***")
                .hasMessageNotContaining("secret");
    }

    /**
     * PostgreSQL behind a TCP proxy that the test cuts and restores: while cut, calls fail with a clear
     * KvException and health says down; acknowledged data is all there afterwards, and the same store
     * works again without a restart.
     */
    @Test
    void aDatabaseThatGoesAwayFailsCallsClearlyAndTheStoreRecovers() throws Exception {
        Backend.POSTGRESQL.assumeAvailable();
        try (Backend.Place place = Backend.POSTGRESQL.newPlace(); TcpProxy proxy = new TcpProxy(5432)) {
            String url = place.jdbcUrl().replace("127.0.0.1:5432", "127.0.0.1:" + proxy.port());
            try (Storage storage = Storage.builder().jdbcUrl(url).connectionTimeout(Duration.ofMillis(500))
                    .cacheSize(0).open()) {
                Kv kv = storage.kv().namespace("m");
                for (int i = 0; i < 100; i++) {
                    kv.set("before" + i, "v" + i);
                }
                proxy.cut();
                assertThatThrownBy(() -> kv.set("during", "x")).isInstanceOf(KvException.class)
                        .hasMessageContaining("KV write failed, not stored");
                assertThatThrownBy(() -> kv.get("before1")).isInstanceOf(KvException.class)
                        .hasMessageContaining("KV read of 'before1' in m failed");
                assertThat(storage.healthy()).isFalse(); // the failed calls said so
                Thread.sleep(1100); // and the background ping, once a second, keeps saying so
                assertThat(storage.healthy()).isFalse();
                assertThat(storage.lastError()).isNotBlank();

                proxy.restore();
                boolean reconnected = Await.until(Duration.ofSeconds(20), Duration.ofMillis(100), () -> {
                    try {
                        kv.set("after", "ok");
                        return true;
                    } catch (KvException e) {
                        return false;
                    }
                });
                if (!reconnected) {
                    kv.set("after", "ok"); // throws why, once more
                }
                for (int i = 0; i < 100; i++) {
                    assertThat(kv.get("before" + i)).isEqualTo("v" + i);
                }
                assertThat(kv.get("after")).isEqualTo("ok");
                assertThat(kv.get("during")).isNull();
                assertThat(storage.healthy()).isTrue();
            }
        }
    }

    /**
     * Closing while the database is down returns at its timeout, not after every queued write has had its
     * turn: 20 single-write batches at 2 s each would take 40 s. The writes still queued fail their
     * futures (none was acknowledged); none is left hanging.
     */
    @Test
    @Timeout(value = 20, unit = TimeUnit.SECONDS)
    @SuppressWarnings("rawtypes") // allOf takes an array of futures
    void closingWhileTheDatabaseIsDownReturnsInTimeAndFailsTheQueuedWrites() throws Exception {
        Backend.POSTGRESQL.assumeAvailable();
        try (Backend.Place place = Backend.POSTGRESQL.newPlace(); TcpProxy proxy = new TcpProxy(5432)) {
            String url = place.jdbcUrl().replace("127.0.0.1:5432", "127.0.0.1:" + proxy.port());
            Storage storage = Storage.builder().jdbcUrl(url).connectionTimeout(Duration.ofSeconds(2))
                    .maxWriteBatch(1).cacheSize(0).open();
            Kv kv = storage.kv().namespace("m");
            kv.set("before", "v");
            proxy.cut();
            List<java.util.concurrent.CompletableFuture<Void>> writes = new ArrayList<>();
            for (int i = 0; i < 20; i++) {
                writes.add(kv.setAsync("during" + i, "x", null).toCompletableFuture());
            }

            storage.close(Duration.ofMillis(500));

            java.util.concurrent.CompletableFuture.allOf(writes.toArray(new java.util.concurrent.CompletableFuture[0]))
                    .handle((v, e) -> null).get(5, TimeUnit.SECONDS);
            assertThat(writes).allSatisfy(w -> assertThat(w).isCompletedExceptionally());
            assertThat(writes.get(writes.size() - 1)).failsWithin(Duration.ZERO)
                    .withThrowableOfType(java.util.concurrent.ExecutionException.class)
                    .withMessageContaining("not stored");
        }
    }

    @Test
    void aSqliteFileDeletedWhileOpenIsNoticedAndTakesNoMoreWrites() throws Exception {
        Path data = dir.resolve("data");
        try (Storage storage = Storage.builder().dataDir(data).open()) {
            Kv kv = storage.kv().namespace("m");
            kv.set("k", "v");
            assertThat(storage.healthy()).isTrue();
            for (String suffix : List.of("", "-wal", "-shm")) {
                Files.deleteIfExists(data.resolve(Storage.SQLITE_FILE + suffix));
            }
            assertThat(Await.until(Duration.ofSeconds(5), () -> !storage.healthy())).isTrue();
            assertThat(storage.lastError()).contains("was deleted or replaced while open");
            assertThatThrownBy(() -> kv.set("k2", "v2")).isInstanceOf(KvException.class)
                    .hasMessageContaining("deleted or replaced while open");
            assertThatThrownBy(() -> storage.transcripts().append(List.of(new dev.pulsebus.transcript.TranscriptRecord(1,
                    dev.pulsebus.event.ChatRef.group("http", "r"), "u", java.time.Instant.now(), "m1",
                    dev.pulsebus.event.Message.text("hi"), false))))
                    .isInstanceOf(java.sql.SQLException.class).hasMessageContaining("deleted or replaced while open");
            Thread.sleep(1500); // a successful read on a connection to the unlinked file does not make it healthy again
            kv.get("k");
            assertThat(storage.healthy()).isFalse();
        }
    }

    @Test
    void aSqliteFileReplacedWhileOpenIsNoticed() throws Exception {
        Path data = dir.resolve("data");
        try (Storage storage = Storage.builder().dataDir(data).open()) {
            storage.kv().namespace("m").set("k", "v");
            Path file = data.resolve(Storage.SQLITE_FILE);
            Path copy = dir.resolve("copy.db");
            Files.copy(file, copy);
            Files.move(copy, file, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
            assertThat(Await.until(Duration.ofSeconds(5), () -> !storage.healthy())).isTrue();
            assertThat(storage.lastError()).contains("was deleted or replaced while open");
        }
    }

    @Test
    void aPostgresqlSchemaRecreatedEmptyIsMigratedAgainAndTakesWrites() throws Exception {
        recreatedEmpty(Backend.POSTGRESQL);
    }

    @Test
    void aMariadbDatabaseRecreatedEmptyIsMigratedAgainAndTakesWrites() throws Exception {
        recreatedEmpty(Backend.MYSQL);
    }

    private static void recreatedEmpty(Backend backend) throws Exception {
        try (Backend.Place place = backend.newPlace(); Storage storage = place.open()) {
            Kv kv = storage.kv().namespace("m");
            kv.set("before", "1");
            assertThat(storage.migrate("weather", StorageFailureTest.class.getClassLoader(), "db/weather-test"))
                    .isEqualTo(2);
            place.recreateEmpty();
            assertThat(Await.until(Duration.ofSeconds(15), () -> {
                try {
                    kv.set("after", "2");
                    return true;
                } catch (KvException e) {
                    return false; // until the health check has migrated it again
                }
            })).as("writes work again without a restart").isTrue();
            assertThat(kv.get("after")).isEqualTo("2");
            assertThat(Await.until(Duration.ofSeconds(5), () -> { // MariaDB: its DDL commits before Flyway's record
                try (Connection c = place.connect();
                     ResultSet rs = c.createStatement().executeQuery("SELECT COUNT(*) FROM " + Schema.HISTORY)) {
                    return rs.next() && rs.getInt(1) > 0;
                }
            })).as("the history records the migration again").isTrue();
            assertThat(Await.until(Duration.ofSeconds(5), storage::healthy)).isTrue();
            assertThat(Await.until(Duration.ofSeconds(5), () -> { // a module's migrations, applied again too
                try (Connection c = place.connect(); ResultSet rs = c.createStatement().executeQuery(
                        "SELECT summary FROM weather_forecast WHERE city = 'Tokyo'")) {
                    return rs.next() && rs.getString(1).equals("Sunny");
                } catch (java.sql.SQLException notYet) {
                    return false;
                }
            })).as("the module's table and rows are back").isTrue();
        }
    }
}
