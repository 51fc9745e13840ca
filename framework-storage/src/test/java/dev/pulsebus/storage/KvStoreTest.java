package dev.pulsebus.storage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.pulsebus.kv.Kv;
import dev.pulsebus.kv.KvException;
import dev.pulsebus.testing.Await;
import dev.pulsebus.testing.FakeClock;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.EnumSource;

/** The KV's semantics, the same on every backend. */
@ParameterizedClass
@EnumSource(Backend.class)
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class KvStoreTest {

    @Parameter
    Backend backend;

    private Backend.Place place;
    private final FakeClock clock = new FakeClock();
    private Storage storage;
    private Kv kv;

    @BeforeEach
    void open() {
        place = backend.newPlace();
        storage = place.builder().clock(clock).open();
        kv = storage.kv().namespace("weather");
    }

    @AfterEach
    void close() {
        if (storage != null) {
            storage.close();
        }
        if (place != null) {
            place.close();
        }
    }

    @Test
    void setThenGetReturnsTheValueAndDeleteRemovesIt() {
        kv.set("city", "Tokyo 東京 🌸");
        assertThat(kv.get("city")).isEqualTo("Tokyo 東京 🌸");
        assertThat(kv.delete("city")).isTrue();
        assertThat(kv.get("city")).isNull();
        assertThat(kv.delete("city")).isFalse();
    }

    @Test
    void bytesAndJsonRoundTrip() {
        byte[] raw = {0, (byte) 0xff, 7, (byte) 0x80};
        kv.setBytes("raw", raw, null);
        raw[0] = 42; // the store kept a copy
        assertThat(kv.getBytes("raw")).containsExactly(0, 0xff, 7, 0x80);
        kv.setJson("pos", new Point(3, -4), null);
        assertThat(kv.getJson("pos", Point.class)).isEqualTo(new Point(3, -4));
        assertThat(kv.getJson("missing", Point.class)).isNull();
    }

    record Point(int x, int y) {
    }

    @Test
    void namespacesDoNotSeeEachOthersKeys() {
        Kv other = storage.kv().namespace("scores");
        kv.set("k", "weather");
        other.set("k", "scores");
        assertThat(kv.get("k")).isEqualTo("weather");
        assertThat(other.get("k")).isEqualTo("scores");
        assertThat(storage.kv().namespace("weather")).isSameAs(kv);
    }

    @Test
    void valuesSurviveReopeningTheStore() {
        kv.set("a", "1");
        kv.setBytes("b", new byte[] {1, 2}, null);
        storage.close();
        storage = place.builder().clock(clock).open();
        Kv again = storage.kv().namespace("weather");
        assertThat(again.get("a")).isEqualTo("1");
        assertThat(again.getBytes("b")).containsExactly(1, 2);
    }

    @Test
    void setManyAndGetMany() {
        Map<String, String> entries = new LinkedHashMap<>();
        for (int i = 0; i < 50; i++) {
            entries.put("k" + i, "v" + i);
        }
        kv.setMany(entries);
        Map<String, String> got = kv.getMany(List.of("k0", "k49", "nope"));
        assertThat(got).containsExactly(Map.entry("k0", "v0"), Map.entry("k49", "v49"));
    }

    @Test
    void setManyWithOneBadKeyStoresNothing() {
        Map<String, String> entries = new LinkedHashMap<>();
        entries.put("good", "1");
        entries.put("x".repeat(300), "2");
        assertThatThrownBy(() -> kv.setMany(entries)).isInstanceOf(KvException.class).hasMessageContaining("255");
        assertThat(kv.get("good")).isNull();
    }

    @Test
    void compareAndSetSwapsOnlyOnTheExpectedValue() {
        assertThat(kv.compareAndSet("n", null, "1")).isTrue();      // set if absent
        assertThat(kv.compareAndSet("n", null, "9")).isFalse();     // present now
        assertThat(kv.compareAndSet("n", "2", "3")).isFalse();      // wrong expectation
        assertThat(kv.get("n")).isEqualTo("1");
        assertThat(kv.compareAndSet("n", "1", "2")).isTrue();
        assertThat(kv.get("n")).isEqualTo("2");
        assertThat(kv.compareAndSet("n", "2", null)).isTrue();      // delete if equal
        assertThat(kv.get("n")).isNull();
        assertThat(kv.compareAndSet("n", null, null)).isTrue();     // is absent
    }

    @Test
    void compareAndSetIsAtomicUnderConcurrentIncrements() throws Exception {
        kv.set("counter", "0");
        int threads = 8;
        int perThread = 25;
        List<Thread> workers = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            workers.add(Thread.ofVirtual().start(() -> {
                for (int i = 0; i < perThread; i++) {
                    while (true) {
                        String cur = kv.get("counter");
                        if (kv.compareAndSet("counter", cur, Integer.toString(Integer.parseInt(cur) + 1))) {
                            break;
                        }
                    }
                }
            }));
        }
        for (Thread w : workers) {
            w.join();
        }
        assertThat(kv.get("counter")).isEqualTo(Integer.toString(threads * perThread));
    }

    @Test
    void valuesExpireAfterTheirTimeToLive() {
        kv.set("session", "abc", Duration.ofMinutes(5));
        kv.set("forever", "x");
        clock.advance(Duration.ofMinutes(4));
        assertThat(kv.get("session")).isEqualTo("abc");
        clock.advance(Duration.ofMinutes(2));
        assertThat(kv.get("session")).isNull();
        assertThat(kv.keys("", 10)).containsExactly("forever");
        // An expired value counts as absent for compare-and-set.
        assertThat(kv.compareAndSet("session", null, "new")).isTrue();
        assertThat(kv.get("session")).isEqualTo("new");
    }

    @Test
    void sweepDeletesExpiredRows() throws Exception {
        kv.set("short", "1", Duration.ofSeconds(1));
        kv.set("long", "2", Duration.ofHours(1));
        clock.advance(Duration.ofSeconds(2));
        JdbcKvStore store = (JdbcKvStore) storage.kv();
        assertThat(store.writer.sweepExpired(clock.millis())).isEqualTo(1);
        assertThat(rowsInDatabase()).isEqualTo(1);
    }

    /** Idle, the writer waits for the next sweep (a minute away): close must end that wait, not sit it out. */
    @Test
    void closingAnIdleStoreStopsItsWriterAtOnce() throws Exception {
        kv.set("k", "v");
        JdbcKvStore store = (JdbcKvStore) storage.kv();
        Thread writer = store.writer.thread();
        assertThat(Await.until(Duration.ofSeconds(10), () -> writer.getState() == Thread.State.TIMED_WAITING))
                .as("the writer waits for work").isTrue();

        store.close(TimeUnit.SECONDS.toNanos(5));

        assertThat(writer.isAlive()).as("the writer stopped within close's timeout").isFalse();
        assertThat(store.writer.pending()).isZero();
    }

    @Test
    void keysListsAPrefixInByteOrderIgnoringLikeWildcards() {
        for (String k : List.of("user:b", "user:a", "user:%x", "user_a", "users", "zzz", "user:")) {
            kv.set(k, "1");
        }
        storage.kv().namespace("other").set("user:c", "1");
        assertThat(kv.keys("user:", 10)).containsExactly("user:", "user:%x", "user:a", "user:b");
        assertThat(kv.keys("user:", 2)).containsExactly("user:", "user:%x");
        assertThat(kv.keys("user_", 10)).containsExactly("user_a");
        assertThat(kv.keys("nothing", 10)).isEmpty();
    }

    @Test
    void keysAreCaseSensitive() {
        kv.set("Key", "upper");
        kv.set("key", "lower");
        assertThat(kv.get("Key")).isEqualTo("upper");
        assertThat(kv.get("key")).isEqualTo("lower");
    }

    @Test
    void limitsAreClearErrors() {
        assertThatThrownBy(() -> kv.set("k".repeat(256), "v")).isInstanceOf(KvException.class)
                .hasMessageContaining("1 to 255 characters");
        assertThatThrownBy(() -> kv.get("")).isInstanceOf(KvException.class);
        assertThatThrownBy(() -> kv.set("a\0b", "v")).isInstanceOf(KvException.class).hasMessageContaining("NUL");
        assertThatThrownBy(() -> kv.set("k", "bad \uD800 text")).isInstanceOf(KvException.class)
                .hasMessageContaining("not valid UTF-8");
        assertThatThrownBy(() -> kv.get("\uDC00")).isInstanceOf(KvException.class)
                .hasMessageContaining("unpaired surrogate");
        assertThatThrownBy(() -> kv.setBytes("big", new byte[(1 << 20) + 1], null)).isInstanceOf(KvException.class)
                .hasMessageContaining("over the limit");
        assertThatThrownBy(() -> storage.kv().namespace("bad name")).isInstanceOf(KvException.class);
        kv.setBytes("latin1", "caf\u00e9".getBytes(StandardCharsets.ISO_8859_1), null);
        assertThatThrownBy(() -> kv.get("latin1")).isInstanceOf(KvException.class)
                .hasMessageContaining("not valid UTF-8");
        assertThat(kv.getBytes("latin1")).hasSize(4);
    }

    @Test
    void aClosedStoreRefusesCalls() {
        storage.close();
        assertThatThrownBy(() -> kv.set("k", "v")).isInstanceOf(KvException.class).hasMessageContaining("closed");
        assertThatThrownBy(() -> kv.keys("", 1)).isInstanceOf(KvException.class).hasMessageContaining("closed");
        storage = null;
    }

    @Test
    void concurrentWritesAreGroupCommittedAndAllDurable() throws Exception {
        int writers = 64;
        int each = 50;
        CountDownLatch start = new CountDownLatch(1);
        List<CompletableFuture<Void>> done = new ArrayList<>();
        for (int w = 0; w < writers; w++) {
            int id = w;
            done.add(CompletableFuture.runAsync(() -> {
                try {
                    start.await();
                } catch (InterruptedException e) {
                    throw new IllegalStateException(e);
                }
                for (int i = 0; i < each; i++) {
                    kv.set("w" + id + ":" + i, Integer.toString(i));
                }
            }, r -> Thread.ofVirtual().start(r)));
        }
        start.countDown();
        CompletableFuture.allOf(done.toArray(CompletableFuture[]::new)).get(60, TimeUnit.SECONDS);
        KvWriter writer = ((JdbcKvStore) storage.kv()).writer;
        assertThat(writer.writes.sum()).isEqualTo(writers * each);
        assertThat(writer.batches.sum()).as("transactions for %d writes", writers * each).isLessThan(writers * each);
        assertThat(rowsInDatabase()).isEqualTo(writers * each);
    }

    @Test
    void aCompletedWriteIsInTheDatabaseAndInTheCache() throws Exception {
        kv.set("x", "old");
        assertThat(kv.get("x")).isEqualTo("old"); // now cached
        kv.setAsync("x", "new").toCompletableFuture().get(10, TimeUnit.SECONDS);
        assertThat(kv.get("x")).isEqualTo("new");
        assertThat(valueInDatabase("x")).isEqualTo("new");
    }

    @Test
    void anotherInstancesWriteIsSeenAfterTheCacheTimeToLive() throws Exception {
        try (Storage second = place.builder().clock(clock).open()) {
            Kv mine = storage.kv().namespace("shared");
            Kv theirs = second.kv().namespace("shared");
            mine.set("k", "1");
            assertThat(theirs.get("k")).isEqualTo("1");
            mine.set("k", "2");
            if (backend == Backend.SQLITE) {
                // SQLite: one instance owns the file; the cache keeps entries until evicted.
                assertThat(theirs.get("k")).isEqualTo("1");
            } else {
                Await.until(Duration.ofSeconds(5), Duration.ofMillis(20), () -> "2".equals(theirs.get("k")));
                assertThat(theirs.get("k")).isEqualTo("2");
            }
        }
        try (Storage uncached = place.builder().clock(clock).cacheSize(0).open()) {
            Kv a = storage.kv().namespace("shared");
            Kv b = uncached.kv().namespace("shared");
            a.set("k", "3");
            assertThat(b.get("k")).isEqualTo("3");
        }
    }

    @Test
    void aCallbackAttachedAfterTheWriteIsQueuedNeverRunsOnTheWriterThread() throws Exception {
        java.util.concurrent.atomic.AtomicInteger onWriter = new java.util.concurrent.atomic.AtomicInteger();
        for (int i = 0; i < 500; i++) {
            CompletionStage<Void> write = kv.setAsync("late" + i, "1"); // the writer may complete it at any moment
            write.thenRun(() -> {
                if (dev.pulsebus.internal.WriterThread.isCurrent()) {
                    onWriter.incrementAndGet();
                }
            }).toCompletableFuture().get(10, TimeUnit.SECONDS);
        }
        assertThat(onWriter).as("callbacks run on the writer thread").hasValue(0);
    }

    @Test
    void aCallbackOfAWriteMayWriteSynchronouslyWithoutDeadlockingTheWriter() throws Exception {
        for (int i = 0; i < 20; i++) {
            String key = "chain" + i;
            kv.setAsync(key, "1").thenRun(() -> kv.set(key + ".next", "2")).toCompletableFuture()
                    .get(10, TimeUnit.SECONDS);
            assertThat(kv.get(key + ".next")).isEqualTo("2");
        }
        kv.set("after", "the writer still commits");
        assertThat(kv.get("after")).isEqualTo("the writer still commits");
    }

    @Test
    void asyncGetAnswersFromCacheAndDatabase() throws Exception {
        kv.set("k", "v");
        assertThat(kv.getAsync("k").toCompletableFuture().get(5, TimeUnit.SECONDS)).isEqualTo("v");
        assertThat(storage.kv().namespace("fresh").getAsync("k").toCompletableFuture().get(5, TimeUnit.SECONDS)).isNull();
    }

    private long rowsInDatabase() throws Exception {
        try (Connection c = place.connect(); ResultSet rs = c.createStatement().executeQuery("SELECT COUNT(*) FROM pulsebus_kv")) {
            rs.next();
            return rs.getLong(1);
        }
    }

    private String valueInDatabase(String key) throws Exception {
        try (Connection c = place.connect();
             PreparedStatement ps = c.prepareStatement("SELECT v FROM pulsebus_kv WHERE ns = 'weather' AND k = ?")) {
            ps.setString(1, key);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() ? new String(rs.getBytes(1), StandardCharsets.UTF_8) : null;
            }
        }
    }
}
