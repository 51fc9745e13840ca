package dev.pulsebus.server;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.pulsebus.cluster.Cluster;
import dev.pulsebus.internal.Json;
import dev.pulsebus.testing.Await;
import dev.pulsebus.testing.Listening;
import dev.pulsebus.testing.PostgresSchema;
import dev.pulsebus.testing.TcpProxy;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReferenceArray;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;

/**
 * Three servers in child JVMs as one bot (issue 22): one PostgreSQL schema, the local RabbitMQ and Redis (Redis
 * through a {@link TcpProxy}, so a test can cut it off), under a broker namespace and Redis prefix of this run's
 * own. Each scenario prints one {@code [cluster]} line with its figures. Skipped, saying why, when a server is
 * absent. The round-robin scenario sends the issue's 3000 messages; the kill scenario kills one instance with
 * SIGKILL during a burst of 900, once, and ten times in the long form ({@code -Pfaults}).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
@Timeout(value = 10, unit = TimeUnit.MINUTES)
class ClusterIT {

    private static final String[] NAMES = {"a", "b", "c"};

    private Path dir;
    private PostgresSchema schema;
    private TcpProxy redis;
    private String namespace;
    private final AtomicReferenceArray<ServerProcess> servers = new AtomicReferenceArray<>(3);

    @BeforeAll
    void start() throws Exception {
        Listening.require("ClusterIT", "RabbitMQ", 5672);
        Listening.require("ClusterIT", "Redis", 6379);
        schema = PostgresSchema.create("ClusterIT");
        dir = Files.createTempDirectory("pulsebus-cluster-it");
        redis = new TcpProxy(6379);
        namespace = "pulsebus-it-" + Long.toHexString(ThreadLocalRandom.current().nextLong() & Long.MAX_VALUE);
        List<Thread> starting = new ArrayList<>();
        List<Exception> failed = new java.util.concurrent.CopyOnWriteArrayList<>();
        for (int i = 0; i < 3; i++) {
            int n = i;
            starting.add(Thread.ofVirtual().start(() -> {
                try {
                    servers.set(n, launch(n));
                } catch (Exception e) {
                    failed.add(e);
                }
            }));
            if (i == 0) {
                starting.get(0).join(); // the first declares the queues; the others find them
            }
        }
        for (Thread t : starting) {
            t.join();
        }
        assertThat(failed).isEmpty();
    }

    private ServerProcess launch(int n) throws IOException {
        Path config = Files.writeString(dir.resolve("pulsebus-" + NAMES[n] + ".toml"), "[server]\nport = 0\n"
                + "[storage]\njdbc_url = \"" + schema.jdbcUrl() + "\"\n"
                + "[cluster]\nenabled = true\ninstance = \"" + NAMES[n] + "\"\npartitions = 16\n"
                + "redis = \"redis://127.0.0.1:" + redis.port() + "\"\n");
        ServerProcess p = ServerProcess.withJvmArgs(List.of("-Dpulsebus.cluster.namespace=" + namespace, "-Xmx256m"),
                "--config", config.toString(), "--data-dir", dir.resolve("data-" + NAMES[n]).toString());
        if (p.url == null) {
            p.process.destroyForcibly();
            throw new IOException("instance " + NAMES[n] + " did not start: " + p.output());
        }
        return p;
    }

    @AfterAll
    void stop() throws Exception {
        for (int i = 0; i < 3; i++) {
            ServerProcess p = servers.get(i);
            if (p != null) {
                p.terminate(15_000);
                p.close();
            }
        }
        if (redis != null) {
            redis.close();
        }
        if (schema != null) {
            schema.close();
        }
        if (namespace != null) {
            Cluster.deleteFromBroker(ServerConfig.defaults().cluster().enabledAs("cleanup").withPartitions(16), namespace);
        }
    }

    /** One client per instance (an HttpClient is costly to make), made again when the instance is restarted. */
    private final java.util.Map<URI, ChatClient> clients = new ConcurrentHashMap<>();

    private ChatClient client(int n) {
        return clients.computeIfAbsent(servers.get(n).url, u -> new ChatClient(u, Duration.ofSeconds(20)));
    }

    /** The bot's replies in {@code room}, oldest first, read from instance {@code n}. */
    private List<String> replies(int n, String room) throws Exception {
        List<String> out = new ArrayList<>();
        for (JsonNode m : client(n).history(room)) {
            if (m.get("user").asText().equals("bot")) {
                out.add(m.get("text").asText());
            }
        }
        return out;
    }

    /**
     * Each chat's numbers, said round-robin to the three instances; what each chat's client got a 201 for. A say
     * that got no answer (its instance was killed) is not sent again.
     */
    private Map<String, List<Integer>> echo(String run, int chats, int each, Runnable midway) throws Exception {
        return echo(run, chats, each, midway, false);
    }

    /**
     * {@link #echo(String, int, int, Runnable)}; with {@code retry}, each say carries an id of the client's and one
     * that got no 201 (no answer, a 503, a 202) is sent again, with the same id, to the next instance, until it does.
     */
    private Map<String, List<Integer>> echo(String run, int chats, int each, Runnable midway, boolean retry)
            throws Exception {
        Map<String, List<Integer>> acknowledged = new ConcurrentHashMap<>();
        AtomicInteger sent = new AtomicInteger();
        List<Thread> senders = new ArrayList<>();
        for (int c = 0; c < chats; c++) {
            String room = run + c;
            int first = c;
            senders.add(Thread.ofVirtual().start(() -> {
                List<Integer> mine = acknowledged.computeIfAbsent(room, r -> new java.util.concurrent.CopyOnWriteArrayList<>());
                for (int n = 0; n < each; n++) {
                    for (int attempt = 0; attempt < (retry ? 30 : 3); attempt++) {
                        int to = (first + n + attempt) % 3;
                        try {
                            HttpResponse<String> r = retry ? client(to).say(room, "u" + first, "/echo " + n, room + "." + n)
                                    : client(to).say(room, "u" + first, "/echo " + n);
                            if (r.statusCode() == 201) {
                                mine.add(n);
                                break;
                            }
                            if (!retry) {
                                break;
                            }
                            Thread.sleep(100); // 503 or 202: maybe stored, maybe not; the same id again
                        } catch (java.net.ConnectException e) {
                            continue; // that instance is down: nothing was sent, try the next
                        } catch (IOException e) {
                            if (!retry) {
                                break; // sent, no answer: maybe stored, maybe not (counted as unacknowledged)
                            }
                        } catch (InterruptedException e) {
                            Thread.currentThread().interrupt();
                            break;
                        }
                    }
                    if (sent.incrementAndGet() == chats * each / 2) {
                        midway.run();
                    }
                }
            }));
        }
        for (Thread t : senders) {
            t.join();
        }
        return acknowledged;
    }

    /** Lost, duplicated and out-of-order replies of {@code acknowledged}, once every one is answered or 30 s passed. */
    private int[] check(Map<String, List<Integer>> acknowledged, int each) throws Exception {
        return check(acknowledged, 0, ThreadLocalRandom.current().nextInt(2)); // c may be the killed one
    }

    /** {@link #check(Map, int)}, waiting on instance {@code waitOn} and reading the replies from {@code readFrom}. */
    private int[] check(Map<String, List<Integer>> acknowledged, int waitOn, int readFrom) throws Exception {
        int[] figures = new int[3];
        for (Map.Entry<String, List<Integer>> e : acknowledged.entrySet()) {
            Set<String> wanted = new java.util.HashSet<>();
            e.getValue().forEach(n -> wanted.add(Integer.toString(n)));
            Await.until(Duration.ofSeconds(30), Duration.ofMillis(200),
                    () -> new java.util.HashSet<>(replies(waitOn, e.getKey())).containsAll(wanted));
            List<String> got = replies(readFrom, e.getKey());
            Map<String, Integer> times = new HashMap<>();
            got.forEach(t -> times.merge(t, 1, Integer::sum));
            for (String w : wanted) {
                if (!times.containsKey(w)) {
                    figures[0]++;
                }
            }
            for (Map.Entry<String, Integer> t : times.entrySet()) {
                figures[1] += t.getValue() - 1;
                if (t.getValue() > 1) { // which instances answered, and to which message: the reply ids say
                    List<String> ids = new ArrayList<>();
                    for (JsonNode m : client(readFrom).history(e.getKey())) {
                        if (m.get("user").asText().equals("bot") && m.get("text").asText().equals(t.getKey())) {
                            ids.add(m.get("id").asText() + "@" + m.get("seq").asText());
                        }
                    }
                    System.out.printf("[cluster] %s: %s answered %d times: %s%n", e.getKey(), t.getKey(), t.getValue(),
                            ids);
                }
            }
            int last = -1;
            for (String t : got) {
                int n = Integer.parseInt(t);
                if (n < last) {
                    figures[2]++;
                }
                last = n;
            }
        }
        return figures;
    }

    @Test
    void threeThousandEchoesOverThirtyChatsAreAnsweredOnceEachInOrder() throws Exception {
        long start = System.nanoTime();
        int each = 100; // the issue's 3000, in every build
        Map<String, List<Integer>> acknowledged = echo("echo", 30, each, () -> { });
        int[] f = check(acknowledged, each);
        int acked = acknowledged.values().stream().mapToInt(List::size).sum();
        System.out.printf("[cluster] 3 instances, 30 chats, %d /echo round-robin: %d acknowledged, lost %d, "
                + "duplicated %d, order violations %d, %d ms%n", 30 * each, acked, f[0], f[1], f[2],
                TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start));
        assertThat(acked).isEqualTo(30 * each);
        assertThat(f).containsExactly(0, 0, 0);
    }

    @Test
    @Order(Integer.MAX_VALUE) // last: the others need all three
    void instancesKilledDuringBurstsLoseRepeatAndReorderNothing() throws Exception {
        int cycles = FaultSuiteIT.LONG ? 10 : 1; // the issue's ten kills in the long form (-Pfaults)
        int each = 30;
        long worstTakeover = 0;
        int[] total = new int[3];
        int ackedTotal = 0;
        for (int cycle = 0; cycle < cycles; cycle++) {
            long[] killedAt = new long[1];
            int victim = (cycle + 2) % 3;
            Map<String, List<Integer>> acknowledged = echo("kill" + cycle + "-", 30, each, () -> {
                try {
                    killedAt[0] = System.currentTimeMillis();
                    servers.get(victim).kill();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }, true);
            int reader = (victim + 1) % 3;
            int[] f = check(acknowledged, reader, (victim + 2) % 3);
            worstTakeover = Math.max(worstTakeover, takeoverMillis(acknowledged.keySet(), killedAt[0], reader));
            servers.set(victim, launch(victim)); // restarted: it joins again and takes partitions as the broker gives them
            clients.clear();
            int acked = acknowledged.values().stream().mapToInt(List::size).sum();
            System.out.printf("[cluster] kill -9 of instance %s midway (cycle %d of %d), 30 chats x %d /echo: "
                    + "%d acknowledged, unanswered %d, answered twice %d, order violations %d%n", NAMES[victim],
                    cycle + 1, cycles, each, acked, f[0], f[1], f[2]);
            assertThat(acked).as("every say answered 201 at last, sent again with its id").isEqualTo(30 * each);
            ackedTotal += acked;
            for (int i = 0; i < 3; i++) {
                total[i] += f[i];
            }
        }
        System.out.printf("[cluster] %d kills -9 during bursts: %d acknowledged, unanswered %d, answered twice %d, "
                + "order violations %d, slowest takeover %d ms%n", cycles, ackedTotal, total[0], total[1], total[2],
                worstTakeover);
        assertThat(total).as("unanswered, answered twice, order violations").containsExactly(0, 0, 0);
        assertThat(worstTakeover).as("the killed instance's chats answered again within 5 s").isLessThan(5_000);
        for (int i = 0; i < 3; i++) {
            assertThat(client(i).get("/health").statusCode()).isEqualTo(200);
        }
    }

    /** The longest silence of the bot in any of {@code rooms} across {@code killedAt}: how long the takeover took. */
    private long takeoverMillis(Set<String> rooms, long killedAt, int reader) throws Exception {
        long worst = 0;
        for (String room : rooms) {
            long before = Long.MIN_VALUE;
            long after = Long.MAX_VALUE;
            for (JsonNode m : client(reader).history(room)) {
                if (!m.get("user").asText().equals("bot")) {
                    continue;
                }
                long t = Instant.parse(m.get("time").asText()).toEpochMilli();
                if (t <= killedAt) {
                    before = Math.max(before, t);
                } else {
                    after = Math.min(after, t);
                }
            }
            if (before != Long.MIN_VALUE && after != Long.MAX_VALUE) {
                worst = Math.max(worst, after - killedAt);
            }
        }
        return worst;
    }

    @Test
    void dailyOnOneInstanceIsRefusedOnTheOthers() throws Exception {
        String user = "dana" + ThreadLocalRandom.current().nextInt(1_000_000);
        assertThat(client(0).say("daily-a", user, "/daily").statusCode()).isEqualTo(201);
        assertThat(Await.until(Duration.ofSeconds(10), () -> replies(0, "daily-a").stream()
                .anyMatch(t -> t.startsWith("Your fortune for today, " + user)))).isTrue();
        assertThat(client(1).say("daily-b", user, "/daily").statusCode()).isEqualTo(201);
        assertThat(Await.until(Duration.ofSeconds(10), () -> replies(1, "daily-b")
                .contains("Slow down: try /daily again in 24 h."))).as("refused through b").isTrue();
        assertThat(client(2).say("daily-c", user, "/daily").statusCode()).isEqualTo(201);
        assertThat(client(2).say("daily-c", user, "/echo after")).isNotNull();
        assertThat(Await.until(Duration.ofSeconds(10), () -> replies(2, "daily-c").contains("after"))).isTrue();
        assertThat(replies(2, "daily-c")).as("refused through c too (silently: told once per block)")
                .containsExactly("after");
    }

    @Test
    void aRateLimitOfFivePerMinuteHoldsAtFiveAcrossTheThreeUnderConcurrentCalls() throws Exception {
        assertThat(Await.until(Duration.ofSeconds(30), () -> {
            for (int n = 0; n < 3; n++) {
                if (health(n).get("cluster").get("partitions_held").asInt() < 4) {
                    return false;
                }
            }
            return true;
        })).as("the 16 partitions spread over the three").isTrue();
        String user = "rita" + ThreadLocalRandom.current().nextInt(1_000_000);
        double[] before = new double[3];
        for (int n = 0; n < 3; n++) {
            before[n] = metric(n, "pulsebus_cluster_events_handled_total");
        }
        int calls = 15; // one per room, so the rooms' holders (all three) decide at once
        List<Thread> callers = new ArrayList<>();
        for (int i = 0; i < calls; i++) {
            int n = i;
            callers.add(Thread.ofVirtual().start(() -> {
                try {
                    client(n % 3).say(user + "-" + n, user, "/roll");
                } catch (IOException | InterruptedException e) {
                    throw new AssertionError(e);
                }
            }));
        }
        for (Thread t : callers) {
            t.join();
        }
        List<String> answers = new java.util.concurrent.CopyOnWriteArrayList<>();
        assertThat(Await.until(Duration.ofSeconds(15), () -> {
            answers.clear();
            for (int i = 0; i < calls; i++) {
                answers.addAll(replies(0, user + "-" + i));
            }
            return answers.size() >= 6;
        })).as("five rolls and one refusal: " + answers).isTrue();
        Thread.sleep(500); // a sixth roll would show by now
        answers.clear();
        for (int i = 0; i < calls; i++) {
            answers.addAll(replies(0, user + "-" + i));
        }
        int instances = 0;
        for (int n = 0; n < 3; n++) {
            instances += metric(n, "pulsebus_cluster_events_handled_total") > before[n] ? 1 : 0;
        }
        System.out.printf("[cluster] rate limit 5/min, %d concurrent /roll through 3 instances: %d granted, %d "
                + "refusals told, handled on %d instances%n", calls, answers.stream().filter(t -> t.startsWith(
                "You rolled")).count(), answers.stream().filter(t -> t.contains("may be used 5 times")).count(), instances);
        assertThat(answers.stream().filter(t -> t.startsWith("You rolled"))).as("granted, across all").hasSize(5);
        assertThat(answers.stream().filter(t -> t.contains("may be used 5 times"))).as("told once").hasSize(1);
        assertThat(instances).as("the rooms' calls were decided on more than one instance").isGreaterThanOrEqualTo(2);
    }

    @Test
    void aPollOnOneInstanceIsAnsweredByASayOnAnother() throws Exception {
        String room = "poll" + ThreadLocalRandom.current().nextInt(1_000_000);
        client(0).say(room, "ann", "hello");
        List<JsonNode> history = client(1).history(room);
        long after = history.get(history.size() - 1).get("seq").asLong();
        for (int round = 0; round < 3; round++) {
            long[] answered = new long[1];
            java.util.concurrent.atomic.AtomicReference<HttpResponse<String>> poll = new java.util.concurrent.atomic.AtomicReference<>();
            long at = after;
            Thread waiting = Thread.ofVirtual().start(() -> {
                try {
                    poll.set(client(1).get("/api/rooms/" + room + "/poll?after=" + at + "&timeout_ms=10000"));
                    answered[0] = System.nanoTime();
                } catch (IOException | InterruptedException e) {
                    throw new IllegalStateException(e);
                }
            });
            assertThat(Await.until(Duration.ofSeconds(5), () -> pollsWaiting(1) > 0)).isTrue();
            long said = System.nanoTime();
            client(0).say(room, "ann", "ping " + round);
            waiting.join();
            long ms = TimeUnit.NANOSECONDS.toMillis(answered[0] - said);
            System.out.printf("[cluster] poll on b, say on a: the poll returned %d ms after the say was sent%n", ms);
            assertThat(poll.get().statusCode()).isEqualTo(200);
            JsonNode messages = Json.MAPPER.readTree(poll.get().body()).get("messages");
            assertThat(messages.get(0).get("text").asText()).isEqualTo("ping " + round);
            assertThat(ms).as("well within the poll's 10 s timeout: woken by the say, not timed out").isLessThan(5_000);
            after = messages.get(messages.size() - 1).get("seq").asLong();
        }
        assertThat(metric(1, "pulsebus_cluster_remote_wakeups_total")).isGreaterThanOrEqualTo(3);
    }

    @Test
    void withRedisCutOffCommandsRunOnLocalTablesAndHealthIsDegradedUntilItIsBack() throws Exception {
        redis.cut();
        try {
            String user = "rex" + ThreadLocalRandom.current().nextInt(1_000_000);
            assertThat(client(0).say("outage", user, "/echo still here").statusCode()).isEqualTo(201);
            assertThat(Await.until(Duration.ofSeconds(10), () -> replies(0, "outage").contains("still here"))).isTrue();
            assertThat(client(1).say("outage", user, "/daily").statusCode()).isEqualTo(201);
            assertThat(Await.until(Duration.ofSeconds(10), () -> replies(0, "outage").stream()
                    .anyMatch(t -> t.startsWith("Your fortune")))).as("a control still answers, locally").isTrue();
            assertThat(Await.until(Duration.ofSeconds(10), () -> health(0).get("status").asText().equals("DEGRADED")))
                    .isTrue();
            JsonNode h = health(0);
            assertThat(h.get("components").get("cluster").asText()).isEqualTo("DEGRADED");
            assertThat(h.get("cluster").get("redis").asText()).isEqualTo("DOWN");
        } finally {
            redis.restore();
        }
        for (int n = 0; n < 3; n++) {
            int i = n;
            assertThat(Await.until(Duration.ofSeconds(15), () -> health(i).get("status").asText().equals("UP")))
                    .as("instance " + NAMES[n] + " shares again").isTrue();
        }
    }

    @Test
    void healthAndMetricsShowTheCluster() throws Exception {
        assertThat(Await.until(Duration.ofSeconds(15), () -> {
            int held = 0;
            for (int n = 0; n < 3; n++) {
                held += health(n).get("cluster").get("partitions_held").asInt();
            }
            return held == 16;
        })).as("the 16 partitions are held, each by one instance").isTrue();
        JsonNode h = health(0);
        assertThat(h.get("cluster").get("broker").asText()).isEqualTo("UP");
        assertThat(h.get("cluster").get("instance").asText()).isEqualTo("a");
        assertThat(h.get("instance").asText()).as("the instance's name is its cluster name").isEqualTo("a");
        assertThat(metric(0, "pulsebus_cluster_partitions_held")).isBetween(0.0, 16.0);
        assertThat(metric(0, "pulsebus_cluster_redeliveries_total")).isGreaterThanOrEqualTo(0);
        assertThat(metric(0, "pulsebus_cluster_dedupe_hits_total")).isGreaterThanOrEqualTo(0);
    }

    private JsonNode health(int n) throws Exception {
        return Json.MAPPER.readTree(client(n).get("/health").body());
    }

    private int pollsWaiting(int n) throws Exception {
        return (int) metric(n, "pulsebus_longpoll_waiters");
    }

    private double metric(int n, String name) throws Exception {
        for (String line : client(n).get("/metrics").body().split("\n")) {
            if (line.startsWith(name + " ") || line.startsWith(name + "{")) {
                return Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
            }
        }
        throw new AssertionError("no " + name + " in /metrics of " + NAMES[n]);
    }
}
