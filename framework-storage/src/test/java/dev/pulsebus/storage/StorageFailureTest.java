package dev.pulsebus.storage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.pulsebus.kv.Kv;
import dev.pulsebus.kv.KvException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
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
        try (Backend.Place place = Backend.POSTGRESQL.newPlace(); Proxy proxy = new Proxy(5432)) {
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
                Thread.sleep(1100); // health pings at most once a second
                assertThat(storage.healthy()).isFalse();
                assertThat(storage.lastError()).isNotBlank();

                proxy.restore();
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
                while (true) {
                    try {
                        kv.set("after", "ok");
                        break;
                    } catch (KvException e) {
                        if (System.nanoTime() > deadline) {
                            throw e;
                        }
                        Thread.sleep(100);
                    }
                }
                for (int i = 0; i < 100; i++) {
                    assertThat(kv.get("before" + i)).isEqualTo("v" + i);
                }
                assertThat(kv.get("after")).isEqualTo("ok");
                assertThat(kv.get("during")).isNull();
                Thread.sleep(1100);
                assertThat(storage.healthy()).isTrue();
            }
        }
    }

    /** A TCP relay to a local port that can refuse and sever connections on demand. */
    static final class Proxy implements AutoCloseable {
        private final int target;
        private final ServerSocket server;
        private final List<Socket> open = new CopyOnWriteArrayList<>();
        private volatile boolean cut;

        Proxy(int target) throws IOException {
            this.target = target;
            this.server = new ServerSocket();
            server.bind(new InetSocketAddress("127.0.0.1", 0));
            Thread.ofPlatform().daemon().start(this::accept);
        }

        int port() {
            return server.getLocalPort();
        }

        void cut() {
            cut = true;
            for (Socket s : open) {
                closeQuietly(s);
            }
            open.clear();
        }

        void restore() {
            cut = false;
        }

        private void accept() {
            while (!server.isClosed()) {
                try {
                    Socket client = server.accept();
                    if (cut) {
                        client.close();
                        continue;
                    }
                    Socket upstream = new Socket("127.0.0.1", target);
                    open.add(client);
                    open.add(upstream);
                    pump(client, upstream);
                    pump(upstream, client);
                } catch (IOException e) {
                    // closed, or the upstream refused: the client sees a dropped connection
                }
            }
        }

        private void pump(Socket from, Socket to) {
            Thread.ofVirtual().start(() -> {
                byte[] buf = new byte[8192];
                try (InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream()) {
                    for (int n; (n = in.read(buf)) >= 0; ) {
                        out.write(buf, 0, n);
                    }
                } catch (IOException ignored) {
                    // either side closed
                } finally {
                    closeQuietly(from);
                    closeQuietly(to);
                }
            });
        }

        private static void closeQuietly(Socket s) {
            try {
                s.close();
            } catch (IOException ignored) {
                // already closed
            }
        }

        @Override
        public void close() throws IOException {
            cut();
            server.close();
        }
    }
}
