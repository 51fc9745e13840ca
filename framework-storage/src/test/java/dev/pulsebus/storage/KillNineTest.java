package dev.pulsebus.storage;

import static org.assertj.core.api.Assertions.assertThat;

import dev.pulsebus.kv.Kv;
import dev.pulsebus.testing.Await;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A child JVM writes a stream of KV values from many threads and prints each key once its future has
 * completed; the test kills it with SIGKILL mid-stream and checks every printed key is in the SQLite
 * file afterwards.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class KillNineTest {

    @TempDir
    Path dir;

    @Test
    void everyAcknowledgedWriteSurvivesKillNine() throws Exception {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        Path acks = dir.resolve("acks.txt");
        Process child = new ProcessBuilder(java, "--enable-native-access=ALL-UNNAMED", "-cp", System.getProperty("java.class.path"),
                Writer.class.getName(), dir.resolve("data").toString())
                .redirectOutput(acks.toFile())
                .redirectError(ProcessBuilder.Redirect.INHERIT)
                .start();
        Await.until(Duration.ofSeconds(60), () -> !child.isAlive() || Files.size(acks) >= 30_000);
        child.destroyForcibly(); // SIGKILL on Linux: no shutdown hook, no close
        child.waitFor(30, TimeUnit.SECONDS);
        String printed = Files.readString(acks, StandardCharsets.UTF_8);
        // Only whole lines: a key is acknowledged once its line (with its newline) was printed.
        List<String> acked = List.of(printed.substring(0, printed.lastIndexOf('\n') + 1).split("\n"));
        assertThat(acked).as("acknowledged before the kill").hasSizeGreaterThan(3000);
        assertThat(child.exitValue()).isEqualTo(137);
        try (Storage storage = Storage.builder().dataDir(dir.resolve("data")).cacheSize(0).open()) {
            Kv kv = storage.kv().namespace("stream");
            List<String> missing = new ArrayList<>();
            for (String key : acked) {
                if (!key.equals(kv.get(key))) {
                    missing.add(key);
                }
            }
            assertThat(missing).as("acknowledged writes missing after kill -9").isEmpty();
        }
    }

    /** The child: 16 writers, each key's value is the key; prints a key once its write is durable. */
    public static final class Writer {
        public static void main(String[] args) throws Exception {
            Storage storage = Storage.builder().dataDir(Path.of(args[0])).open();
            Kv kv = storage.kv().namespace("stream");
            List<CompletableFuture<Void>> writers = new ArrayList<>();
            for (int w = 0; w < 16; w++) {
                int id = w;
                writers.add(CompletableFuture.runAsync(() -> {
                    for (long i = 0; ; i++) {
                        String key = id + ":" + i;
                        kv.set(key, key);
                        synchronized (System.out) {
                            System.out.println(key);
                            System.out.flush();
                        }
                    }
                }));
            }
            CompletableFuture.allOf(writers.toArray(CompletableFuture[]::new)).join();
        }
    }
}
