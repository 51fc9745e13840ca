package dev.pulsebus.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.pulsebus.internal.Json;
import dev.pulsebus.onebot.RawWebSocket;
import dev.pulsebus.testing.PostgresSchema;
import dev.pulsebus.testing.TcpProxy;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Random;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * "Loses nothing", measured: the real server jar in child processes, killed, cut off from its database,
 * out of disk, and (in the long form) soaked. Each scenario prints one {@code [faults]} line with its
 * figures (also appended to {@code target/faults-summary.txt}). {@code mvn verify} runs the short form;
 * {@code mvn verify -Pfaults} the long one ({@code -Dpulsebus.faults.long=true}).
 */
@Timeout(value = 30, unit = TimeUnit.MINUTES)
class FaultSuiteIT {

    static final boolean LONG = Boolean.getBoolean("pulsebus.faults.long");
    private static final int CLIENTS = 16;

    @TempDir
    Path dir;

    // ------------------------------------------------------------------ kill -9

    @Test
    void killNineUnderLoadOnSqliteLosesAndDuplicatesNothing() throws Exception {
        killNineUnderLoad("sqlite", "");
    }

    @Test
    void killNineUnderLoadOnPostgresqlLosesAndDuplicatesNothing() throws Exception {
        try (PostgresSchema schema = PostgresSchema.create("fault suite, kill -9 on PostgreSQL")) {
            killNineUnderLoad("postgresql", "jdbc_url = \"" + schema.jdbcUrl() + "\"\n");
        }
    }

    /**
     * 16 clients say as fast as they are answered; the server is killed with SIGKILL at a random moment
     * (0.2 to 1.5 s into each run) and restarted on the same data, {@code kills} times. Every say that got
     * its 201 must be in the history afterwards, once, with the seq it was acknowledged with, and each
     * client's messages in the order it sent them.
     */
    private void killNineUnderLoad(String backend, String storageToml) throws Exception {
        int kills = LONG ? 100 : 20;
        Path config = config("", storageToml);
        Path data = dir.resolve("data");
        long seed = ThreadLocalRandom.current().nextLong();
        Random random = new Random(seed);
        Map<String, Long> acknowledged = new ConcurrentHashMap<>(); // text -> seq
        LongAdder refused = new LongAdder();
        for (int k = 0; k < kills; k++) {
            try (ServerProcess server = ServerProcess.fromJar(config, data)) {
                AtomicBoolean stop = new AtomicBoolean();
                List<Thread> clients = new ArrayList<>();
                for (int c = 0; c < CLIENTS; c++) {
                    String prefix = "c" + c + "-k" + k + "-";
                    ChatClient chat = new ChatClient(server.url, Duration.ofSeconds(10));
                    clients.add(Thread.ofVirtual().start(() -> {
                        for (int n = 0; !stop.get(); n++) {
                            String text = prefix + n;
                            try {
                                HttpResponse<String> r = chat.say("k9", "ann", text);
                                if (r.statusCode() == 201) {
                                    acknowledged.put(text, ChatClient.seq(r));
                                } else {
                                    refused.increment();
                                }
                            } catch (IOException | InterruptedException e) {
                                return; // killed
                            }
                        }
                    }));
                }
                Thread.sleep(200 + random.nextInt(1300));
                server.kill();
                stop.set(true);
                for (Thread t : clients) {
                    t.join(TimeUnit.SECONDS.toMillis(30));
                }
            }
        }
        List<JsonNode> history;
        try (ServerProcess server = ServerProcess.fromJar(config, data)) {
            history = new ChatClient(server.url, Duration.ofSeconds(30)).history("k9");
            assertThat(server.terminate(30_000)).as("exits on SIGTERM").isNotNegative();
        }
        Map<String, Integer> copies = new HashMap<>();
        Map<String, Long> storedSeq = new HashMap<>();
        long lastSeq = Long.MIN_VALUE;
        boolean ordered = true;
        for (JsonNode m : history) {
            String text = m.get("text").asText();
            copies.merge(text, 1, Integer::sum);
            storedSeq.put(text, m.get("seq").asLong());
            ordered &= m.get("seq").asLong() > lastSeq;
            lastSeq = m.get("seq").asLong();
        }
        long lost = acknowledged.keySet().stream().filter(t -> !copies.containsKey(t)).count();
        long duplicated = copies.values().stream().filter(n -> n > 1).mapToLong(n -> n - 1).sum();
        long moved = acknowledged.entrySet().stream()
                .filter(e -> storedSeq.containsKey(e.getKey()) && !storedSeq.get(e.getKey()).equals(e.getValue())).count();
        summary("kill -9 under load (" + backend + ", " + CLIENTS + " clients, seed " + seed + "): " + kills
                + " kills, " + acknowledged.size() + " acknowledged / " + lost + " lost / " + duplicated
                + " duplicated; " + history.size() + " stored (" + (history.size() - acknowledged.size() + lost)
                + " unacknowledged but stored), " + refused.sum() + " refused, " + moved + " with another seq");
        assertThat(acknowledged).as("says acknowledged").isNotEmpty();
        assertThat(lost).as("acknowledged, then lost").isZero();
        assertThat(duplicated).as("stored twice").isZero();
        assertThat(moved).as("stored under another seq than acknowledged").isZero();
        assertThat(ordered).as("history in seq order").isTrue();
    }

    // ------------------------------------------------------------------ database outage

    /**
     * PostgreSQL behind a TCP proxy, cut for 10 s under load: says are answered (201 or 503, never a hang
     * or a 500), /health goes DOWN with 503 and comes back without a restart. Then it is cut again and the
     * server is stopped with SIGTERM: it exits within its shutdown timeout, and what it could not store
     * is spilled and stored by the next start.
     */
    @Test
    void databaseOutageUnderLoad() throws Exception {
        try (PostgresSchema schema = PostgresSchema.create("fault suite, database outage");
             TcpProxy proxy = new TcpProxy(5432)) {
            String url = schema.jdbcUrl(proxy.port());
            int shutdownMs = 5000;
            Path config = config("shutdown_timeout_ms = " + shutdownMs + "\n", "jdbc_url = \"" + url + "\"\n");
            Path data = dir.resolve("data");
            Map<String, Long> acknowledged = new ConcurrentHashMap<>(); // 201: stored
            Map<String, Long> accepted = new ConcurrentHashMap<>(); // 202: taken, stored later
            Map<Integer, LongAdder> statuses = new ConcurrentHashMap<>();
            LongAdder hung = new LongAdder();
            long cutMillis = 10_000;
            long downAfter;
            long upAfter;
            long sayAfter;
            long exitMillis;
            List<String> spilled;
            try (ServerProcess server = ServerProcess.fromJar(config, data)) {
                ChatClient probe = new ChatClient(server.url, Duration.ofSeconds(5));
                AtomicBoolean stop = new AtomicBoolean();
                List<Thread> clients = load(server, 8, "o", stop, acknowledged, accepted, statuses, hung);
                Thread.sleep(3000);

                proxy.cut();
                long cut = System.nanoTime();
                downAfter = -1;
                while (System.nanoTime() - cut < TimeUnit.MILLISECONDS.toNanos(cutMillis)) {
                    if (downAfter < 0 && probe.get("/health").statusCode() == 503) {
                        downAfter = millisSince(cut);
                    }
                    Thread.sleep(50);
                }
                proxy.restore();
                long back = System.nanoTime();
                upAfter = -1;
                sayAfter = -1;
                while (millisSince(back) < 30_000 && (upAfter < 0 || sayAfter < 0)) {
                    if (upAfter < 0 && probe.get("/health").statusCode() == 200) {
                        upAfter = millisSince(back);
                    }
                    if (sayAfter < 0 && probe.say("o", "probe", "back").statusCode() == 201) {
                        sayAfter = millisSince(back);
                    }
                    Thread.sleep(20);
                }

                proxy.cut(); // and stop it while the database is away
                Thread.sleep(1500);
                stop.set(true);
                exitMillis = server.terminate(shutdownMs + 10_000);
                for (Thread t : clients) {
                    t.join(TimeUnit.SECONDS.toMillis(30));
                }
                spilled = spilledTexts(data);
            }
            proxy.restore();
            List<JsonNode> history;
            try (ServerProcess again = ServerProcess.fromJar(config, data)) {
                history = new ChatClient(again.url, Duration.ofSeconds(30)).history("o");
                again.terminate(30_000);
            }
            java.util.Set<String> stored = new java.util.HashSet<>();
            history.forEach(m -> stored.add(m.get("text").asText()));
            long lost = acknowledged.keySet().stream().filter(t -> !stored.contains(t)).count();
            long acceptedLost = accepted.keySet().stream().filter(t -> !stored.contains(t)).count();
            long spilledLost = spilled.stream().filter(t -> !stored.contains(t)).count();
            summary("database outage (postgresql, 8 clients, cut " + cutMillis / 1000 + " s): /health 503 after "
                    + downAfter + " ms, 200 again " + upAfter + " ms and a say 201 " + sayAfter
                    + " ms after the database came back; says " + statuses + ", " + hung.sum() + " hung; SIGTERM"
                    + " during a second cut exited in " + exitMillis + " ms (timeout " + shutdownMs + " ms), "
                    + spilled.size() + " records spilled (" + spilledLost + " not stored at the next start); "
                    + acknowledged.size() + " acknowledged (201) / " + lost + " lost; " + accepted.size()
                    + " accepted (202) / " + acceptedLost + " lost");
            assertThat(downAfter).as("ms until /health said 503").isBetween(0L, 2000L);
            assertThat(upAfter).as("ms until /health said 200 again").isBetween(0L, 2000L);
            assertThat(sayAfter).as("ms until a say was stored again").isBetween(0L, 2000L);
            assertThat(statuses.keySet()).as("say statuses").isSubsetOf(201, 202, 503);
            assertThat(hung.sum()).as("says that got no answer within 10 s").isZero();
            assertThat(exitMillis).as("ms from SIGTERM to exit").isBetween(0L, shutdownMs + 2000L);
            assertThat(lost).as("acknowledged, then lost").isZero();
            assertThat(acceptedLost).as("accepted (202), then lost").isZero();
            assertThat(spilled).as("records spilled at SIGTERM during the cut").isNotEmpty();
            assertThat(spilledLost).as("spilled, then not stored by the next start").isZero();
            assertThat(spilledTexts(data)).as("spill files left after the next start").isEmpty();
        }
    }

    /** {@code n} clients saying as fast as they are answered until {@code stop}; statuses counted. */
    private static List<Thread> load(ServerProcess server, int n, String room, AtomicBoolean stop,
                                     Map<String, Long> acknowledged, Map<String, Long> accepted,
                                     Map<Integer, LongAdder> statuses, LongAdder hung) {
        List<Thread> clients = new ArrayList<>();
        for (int c = 0; c < n; c++) {
            String prefix = "c" + c + "-";
            ChatClient chat = new ChatClient(server.url, Duration.ofSeconds(10));
            clients.add(Thread.ofVirtual().start(() -> {
                for (int i = 0; !stop.get(); i++) {
                    try {
                        HttpResponse<String> r = chat.say(room, "ann", prefix + i);
                        statuses.computeIfAbsent(r.statusCode(), s -> new LongAdder()).increment();
                        if (r.statusCode() == 201) {
                            acknowledged.put(prefix + i, ChatClient.seq(r));
                        } else if (r.statusCode() == 202) {
                            accepted.put(prefix + i, ChatClient.seq(r));
                        } else {
                            Thread.sleep(5); // a refused client backs off a little, as a real one would
                        }
                    } catch (java.net.http.HttpTimeoutException e) {
                        hung.increment();
                    } catch (IOException | InterruptedException e) {
                        if (stop.get()) {
                            return;
                        }
                    }
                }
            }));
        }
        return clients;
    }

    /** The texts of the records in the spill files under {@code data}. */
    private static List<String> spilledTexts(Path data) throws IOException {
        Path spill = data.resolve("spill");
        List<String> texts = new ArrayList<>();
        if (!Files.isDirectory(spill)) {
            return texts;
        }
        try (var files = Files.list(spill)) {
            for (Path f : files.filter(f -> f.getFileName().toString().endsWith(".jsonl")).toList()) {
                for (String line : Files.readAllLines(f)) {
                    if (!line.isBlank()) {
                        texts.add(Json.MAPPER.readTree(line).at("/message/0/data/text").asText());
                    }
                }
            }
        }
        return texts;
    }

    // ------------------------------------------------------------------ disk full

    /**
     * The data directory on an 8 MB tmpfs, filled up: says get a clear 503 (never a 500 or a hang), reads
     * and /health keep being answered, and once space is freed writes resume without a restart.
     */
    @Test
    void diskFull() throws Exception {
        Path mount = dir.resolve("small");
        Files.createDirectories(mount);
        Process m = new ProcessBuilder("mount", "-t", "tmpfs", "-o", "size=8m", "tmpfs", mount.toString())
                .redirectErrorStream(true).start();
        String why = new String(m.getInputStream().readAllBytes()).strip();
        boolean mounted = m.waitFor(30, TimeUnit.SECONDS) && m.exitValue() == 0;
        if (!mounted) {
            summary("disk full: skipped, a tmpfs cannot be mounted here (" + why + ")");
        }
        assumeTrue(mounted, "mount -t tmpfs is not allowed here: " + why);
        try {
            Path data = mount.resolve("data");
            Path config = config("", "");
            Map<Integer, LongAdder> fullStatuses = new HashMap<>();
            String fullError = "";
            int readsDuringFull = 0;
            int healthDuringFull = -1;
            long resumedAfter = -1;
            try (ServerProcess server = ServerProcess.fromJar(config, data)) {
                ChatClient chat = new ChatClient(server.url, Duration.ofSeconds(10));
                assertThat(chat.say("d", "ann", "before").statusCode()).isEqualTo(201);
                Path filler = mount.resolve("filler");
                fill(filler);
                for (int i = 0; i < 200; i++) { // past the point of full: the writer fails, says are refused
                    HttpResponse<String> r = chat.say("d", "ann", "full-" + i + "-" + "x".repeat(200));
                    fullStatuses.computeIfAbsent(r.statusCode(), s -> new LongAdder()).increment();
                    if (r.statusCode() >= 500) {
                        fullError = Json.MAPPER.readTree(r.body()).get("error").asText();
                    }
                }
                for (int i = 0; i < 10; i++) {
                    if (chat.get("/api/rooms/d/messages?limit=10").statusCode() == 200) {
                        readsDuringFull++;
                    }
                }
                healthDuringFull = chat.get("/health").statusCode();

                Files.delete(filler);
                long freed = System.nanoTime();
                while (millisSince(freed) < 30_000) {
                    if (chat.say("d", "ann", "after").statusCode() == 201) {
                        resumedAfter = millisSince(freed);
                        break;
                    }
                    Thread.sleep(50);
                }
                server.terminate(30_000);
            }
            summary("disk full (sqlite on an 8 MB tmpfs): 200 says past full got " + fullStatuses + " ('"
                    + fullError + "'); " + readsDuringFull + "/10 reads answered 200, /health " + healthDuringFull
                    + "; writes resumed " + resumedAfter + " ms after space was freed");
            assertThat(fullStatuses.keySet()).as("statuses of says past full").isSubsetOf(201, 202, 503, 507)
                    .containsAnyOf(503, 507);
            assertThat(fullError).as("the refusal says why").isNotBlank();
            assertThat(readsDuringFull).as("reads answered while full").isEqualTo(10);
            assertThat(healthDuringFull).as("/health answered while full").isIn(200, 503);
            assertThat(resumedAfter).as("ms until writes resumed").isBetween(0L, 10_000L);
        } finally {
            new ProcessBuilder("umount", "-l", mount.toString()).start().waitFor(30, TimeUnit.SECONDS);
        }
    }

    /** Writes {@code file} until the file system has no room left. */
    private static void fill(Path file) throws IOException {
        byte[] chunk = new byte[64 * 1024];
        try (var out = Files.newOutputStream(file)) {
            while (true) {
                out.write(chunk);
            }
        } catch (IOException full) {
            if (!String.valueOf(full.getMessage()).contains("No space left")) {
                throw full;
            }
        }
    }

    // ------------------------------------------------------------------ soak (long form)

    /**
     * 60 s of says and /health at half of what this machine sustains: RSS and heap after a full GC at the
     * end within 10 % of their values after warm-up; then 10,000 parked polls, all answered on one message.
     */
    @Test
    void soak() throws Exception {
        assumeTrue(LONG, "the soak runs in the long form only (mvn verify -Pfaults)");
        Soak.run(config("max_connections = 20000\nmax_connections_per_client = 20000\n", ""), dir.resolve("data"), FaultSuiteIT::summary);
    }

    // ------------------------------------------------------------------ peers that do not read

    /**
     * The reproduction of a server taken to OutOfMemoryError in seconds: at {@code -Xmx512m} (direct memory
     * capped the same), 8 OneBot reverse-WebSocket peers (no access token) send pings and {@code /echo} of
     * 256 KiB and never read, reconnecting whenever they are closed, for 60 s. {@code /health/live} must
     * answer every second throughout, the server must not throw OutOfMemoryError and must exit on SIGTERM.
     */
    @Test
    void peersThatDoNotReadLeaveTheServerServing() throws Exception {
        assumeTrue(LONG, "the slow-reader flood runs in the long form only (mvn verify -Pfaults)");
        Path config = config("", "\n[adapters.onebot11]\nenabled = true\nmode = \"reverse-ws\"\n");
        try (ServerProcess server = ServerProcess.fromJar(config, dir.resolve("data"), "-Xmx512m",
                "-XX:MaxDirectMemorySize=512m")) {
            URI url = Objects.requireNonNull(server.url, "started");
            int port = url.getPort();
            AtomicBoolean stop = new AtomicBoolean();
            LongAdder connections = new LongAdder();
            String echo = "/echo " + "x".repeat(256 * 1024);
            AtomicLong ids = new AtomicLong();
            List<Thread> peers = new ArrayList<>();
            for (int p = 0; p < 8; p++) {
                peers.add(Thread.ofPlatform().daemon().start(() -> {
                    byte[] ping = new byte[125];
                    while (!stop.get()) {
                        try (RawWebSocket peer = new RawWebSocket(port, "/onebot/v11/ws", 4096, "X-Self-ID", "10001000")) {
                            connections.increment();
                            while (!stop.get()) {
                                for (int i = 0; i < 1000; i++) {
                                    peer.send(RawWebSocket.PING, ping);
                                }
                                peer.text("{\"time\": 1, \"self_id\": 10001000, \"post_type\": \"message\", "
                                        + "\"message_type\": \"group\", \"sub_type\": \"normal\", \"message_id\": "
                                        + ids.incrementAndGet() + ", \"group_id\": 123456, \"user_id\": 42, \"message\": "
                                        + "[{\"type\": \"text\", \"data\": {\"text\": \"" + echo + "\"}}], \"font\": 0}");
                            }
                        } catch (IOException closed) {
                            // closed by the server (1008): connect again
                        }
                    }
                }));
            }
            HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
            int answered = 0;
            int failed = 0;
            long maxRss = 0;
            for (int s = 0; s < 60; s++) {
                Thread.sleep(1000);
                try {
                    HttpResponse<Void> r = http.send(HttpRequest.newBuilder(url.resolve("/health/live"))
                            .timeout(Duration.ofSeconds(5)).build(), HttpResponse.BodyHandlers.discarding());
                    if (r.statusCode() == 200) {
                        answered++;
                    } else {
                        failed++;
                    }
                } catch (IOException e) {
                    failed++;
                }
                maxRss = Math.max(maxRss, server.rssBytes());
            }
            stop.set(true);
            String metrics = http.send(HttpRequest.newBuilder(url.resolve("/metrics")).build(),
                    HttpResponse.BodyHandlers.ofString()).body();
            long exited = server.terminate(30_000);
            for (Thread t : peers) {
                t.join(TimeUnit.SECONDS.toMillis(10)); // their sockets are closed with the server
            }
            String output = server.output();
            summary("peers that do not read (8, -Xmx512m, 60 s): " + connections.sum() + " connections, /health/live "
                    + answered + " answered / " + failed + " not, RSS at most " + (maxRss >> 20) + " MB, "
                    + metrics.lines().filter(l -> l.startsWith("pulsebus_http_connections_closed_total")).findFirst()
                    .orElse("no close counter") + ", SIGTERM exit in " + exited + " ms");
            assertThat(failed).as("/health/live not answered").isZero();
            assertThat(output).doesNotContain("OutOfMemoryError");
            assertThat(exited).as("exits on SIGTERM").isNotNegative();
        }
    }

    // ------------------------------------------------------------------ helpers

    private Path config(String server, String storage) throws IOException {
        return Files.writeString(dir.resolve("pulsebus.toml"), "[server]\nport = 0\n" + server + "\n[storage]\n" + storage);
    }

    static long millisSince(long nanos) {
        return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - nanos);
    }

    /** Prints one scenario's figures and keeps them in {@code target/faults-summary.txt}. */
    static synchronized void summary(String line) {
        String text = "[faults] " + line;
        System.out.println(text);
        try {
            Path out = Path.of("target", "faults-summary.txt");
            Files.createDirectories(out.getParent());
            Files.writeString(out, text + System.lineSeparator(), java.nio.file.StandardOpenOption.CREATE,
                    java.nio.file.StandardOpenOption.APPEND);
        } catch (IOException e) {
            System.out.println("[faults] (the summary file could not be written: " + e + ")");
        }
    }

}
