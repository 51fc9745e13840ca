package dev.pulsebus.bench.storage;

import dev.pulsebus.event.ChatRef;
import dev.pulsebus.event.Message;
import dev.pulsebus.kv.Kv;
import dev.pulsebus.storage.Storage;
import dev.pulsebus.transcript.TranscriptRecord;
import dev.pulsebus.transcript.TranscriptStore;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * The storage suite. Writes are awaited (a completed future means committed), so the figures are of
 * durable writes. The cold store is a second {@link Storage} on the same database with its cache off.
 */
@State(Scope.Benchmark)
public class StorageBench {

    static final int KEYS = 1024;
    static final int COLD_ROWS = 100_000;
    static final int CONCURRENT = 64;
    static final int BATCH = 512;

    private StorageFixture fixture;
    private Storage storage;
    private Storage uncached;
    private Kv kv;
    private Kv cold;
    private TranscriptStore transcripts;
    private final String[] keys = new String[KEYS];
    private final String[] coldKeys = new String[COLD_ROWS];
    private final Message message = Message.text("a typical chat line of some forty characters");
    private final ChatRef[] chats = new ChatRef[16];
    private final List<CompletableFuture<Void>> inFlight = new ArrayList<>(CONCURRENT);
    private int n;
    private long seq;
    private long random = 0x9E3779B97F4A7C15L;

    @Setup(Level.Trial)
    public void setUp() throws Exception {
        fixture = new StorageFixture();
        storage = fixture.builder().open();
        uncached = fixture.builder().cacheSize(0).open();
        kv = storage.kv().namespace("bench");
        cold = uncached.kv().namespace("cold");
        transcripts = storage.transcripts();
        Map<String, String> hot = new LinkedHashMap<>();
        for (int i = 0; i < KEYS; i++) {
            keys[i] = "key:" + i;
            hot.put(keys[i], "value " + i);
        }
        kv.setMany(hot);
        for (int i = 0; i < KEYS; i++) {
            kv.get(keys[i]); // warm the cache
        }
        Map<String, String> rows = new LinkedHashMap<>();
        for (int i = 0; i < COLD_ROWS; i++) {
            coldKeys[i] = "user:" + i + ":score";
            rows.put(coldKeys[i], Integer.toString(i));
            if (rows.size() == 1000) {
                cold.setMany(rows);
                rows.clear();
            }
        }
        for (int i = 0; i < chats.length; i++) {
            chats[i] = ChatRef.group("bench", "room" + i);
        }
        seq = transcripts.maxSeq();
    }

    /** Transcript rows of the last iteration go, so every iteration inserts into a table of one size. */
    @Setup(Level.Iteration)
    public void trimTranscripts() throws Exception {
        transcripts.retain(0, Instant.MAX);
    }

    @TearDown(Level.Trial)
    public void tearDown() throws Exception {
        uncached.close();
        storage.close();
        fixture.drop();
    }

    @Benchmark
    public void kv_set__pulsebus() {
        kv.set(keys[n++ & (KEYS - 1)], "v");
    }

    @Benchmark
    public void kv_set__pulsebus_round() {
        kv.set(keys[n++ & (KEYS - 1)], "v");
    }

    @Benchmark
    @OperationsPerInvocation(CONCURRENT)
    public void kv_set_concurrent__pulsebus() {
        concurrentRound();
    }

    @Benchmark
    public void kv_set_concurrent__pulsebus_round() {
        concurrentRound();
    }

    private void concurrentRound() {
        inFlight.clear();
        for (int i = 0; i < CONCURRENT; i++) {
            inFlight.add(kv.setAsync(keys[n++ & (KEYS - 1)], "v").toCompletableFuture());
        }
        for (CompletableFuture<Void> f : inFlight) {
            f.join();
        }
    }

    @Benchmark
    public String kv_get_hot__pulsebus() {
        return kv.get(keys[n++ & (KEYS - 1)]);
    }

    @Benchmark
    public String kv_get_hot__pulsebus_round() {
        return kv.get(keys[n++ & (KEYS - 1)]);
    }

    @Benchmark
    public String kv_get_cold__pulsebus() {
        return cold.get(coldKeys[nextIndex()]);
    }

    @Benchmark
    public String kv_get_cold__pulsebus_round() {
        return cold.get(coldKeys[nextIndex()]);
    }

    @Benchmark
    @OperationsPerInvocation(BATCH)
    public void transcript_batch__pulsebus() throws Exception {
        transcripts.append(batch());
    }

    @Benchmark
    public void transcript_batch__pulsebus_round() throws Exception {
        transcripts.append(batch());
    }

    private List<TranscriptRecord> batch() {
        List<TranscriptRecord> batch = new ArrayList<>(BATCH);
        Instant now = Instant.now();
        for (int i = 0; i < BATCH; i++) {
            batch.add(new TranscriptRecord(++seq, chats[i & 15], "user" + (i & 63), now, "", message, false));
        }
        return batch;
    }

    private int nextIndex() {
        long x = random;
        x ^= x << 13;
        x ^= x >>> 7;
        x ^= x << 17;
        random = x;
        return (int) ((x >>> 1) % COLD_ROWS);
    }
}
