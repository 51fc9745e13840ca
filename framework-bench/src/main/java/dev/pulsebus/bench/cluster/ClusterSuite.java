package dev.pulsebus.bench.cluster;

import dev.pulsebus.bench.harness.BenchOptions;
import dev.pulsebus.bench.harness.Progress;
import dev.pulsebus.bench.harness.Row;
import dev.pulsebus.bench.harness.ServerFixture;
import dev.pulsebus.bench.harness.Suite;
import dev.pulsebus.bus.EventBus;
import dev.pulsebus.cluster.Cluster;
import dev.pulsebus.cluster.ClusterSettings;
import dev.pulsebus.command.Command;
import dev.pulsebus.command.CommandRouter;
import dev.pulsebus.command.CommandSource;
import dev.pulsebus.command.Outcome;
import dev.pulsebus.command.Scope;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.Recorder;

/**
 * The {@code cluster} suite, on the local RabbitMQ (5672, guest) and Redis (6379); each row says it was skipped,
 * and why, when they are absent.
 *
 * <ul>
 * <li>{@code cluster.inbound_N}: events dispatched through the broker with N instances joined in this JVM (each
 * its own connections), every event handled once and each key's events checked to arrive in order; beside
 * {@code single_instance}, the same events through one instance's own ordered lanes with no broker, and
 * {@code amqp_client}, the same events through the same broker with its plain client on N connections (the
 * broker's own ceiling here: {@link AmqpCeiling}), in turns with the row's rounds.</li>
 * <li>{@code cluster.control_check}: a command with a cooldown and a rate limit routed with its controls decided
 * in Redis (one Lua script per call for both), 16 callers at once on one connection (Lettuce pipelines them); beside
 * {@code local_table}, the same router deciding on its own tables.</li>
 * <li>{@code cluster.e2e_roundtrip}: two servers in this JVM as one cluster on a PostgreSQL schema of the run's
 * own, {@code /echo n} said on A at 500/s until its reply reaches a poll on B.</li>
 * </ul>
 */
public final class ClusterSuite implements Suite {

    private static final int KEYS = 64;
    private static final int PARTITIONS = 16;
    private static final double INBOUND_TARGET_RATIO = 1.5;
    private static final double CONTROL_TARGET = 20_000;
    private static final double E2E_RATE = 500;
    /** {@code cluster.e2e_roundtrip}'s target: its p99 at most this many times one server's in the same run. */
    private static final double E2E_TARGET_RATIO = 2.0;
    private static final String POSTGRES = System.getProperty("pulsebus.bench.postgres.url",
            "jdbc:postgresql://127.0.0.1:5432/test?user=postgres");

    @Override
    public String name() {
        return "cluster";
    }

    @Override
    public List<Row> run(BenchOptions options) throws Exception {
        String absent = absent();
        if (absent == null) {
            try { // the broker answers, but may refuse the topology
                Cluster.join(settings("bench-probe"), "pulsebus-bench-probe", "pulsebus-bench-probe:").close();
                Cluster.deleteFromBroker(settings("cleanup"), "pulsebus-bench-probe");
            } catch (IOException e) {
                absent = String.valueOf(e.getMessage());
            }
        }
        List<Row> rows = new ArrayList<>();
        if (absent != null) {
            for (String row : List.of("inbound_1", "inbound_2", "inbound_3", "control_check", "e2e_roundtrip")) {
                rows.add(new Row("cluster", "cluster." + row, "ops/s", null, null, null, null, null, null, null, 0,
                        ServerFixture.peers(), "skipped: " + absent));
            }
            return rows;
        }
        int events = options.quick() ? 5_000 : 20_000;
        int rounds = options.quick() ? 1 : 3;
        List<Double> single = new ArrayList<>();
        for (int r = 0; r < rounds; r++) {
            Progress.print("cluster.inbound: round " + (r + 1) + ", one instance without a broker");
            single.add(singleInstance(events));
        }
        double singleRate = ServerFixture.median(single);
        double oneRate = 0;
        double oneCeiling = 0;
        for (int n = 1; n <= 3; n++) {
            List<Double> rates = new ArrayList<>();
            List<Double> ceilings = new ArrayList<>();
            long disorder = 0;
            for (int r = 0; r < rounds; r++) { // in turns, so that both see the machine alike
                Progress.print("cluster.inbound_" + n + ": round " + (r + 1));
                double[] result = throughBroker(n, events);
                rates.add(result[0]);
                disorder += (long) result[1];
                ceilings.add(AmqpCeiling.rate(n, PARTITIONS, events));
            }
            double rate = ServerFixture.median(rates);
            double ceiling = ServerFixture.median(ceilings);
            if (n == 1) {
                oneRate = rate;
                oneCeiling = ceiling;
            }
            String target = n == 3 ? String.format(Locale.ROOT, "; target >= %.1fx inbound_1: %.2fx, %s (the plain"
                    + " client's own 3 connections: %.2fx its 1)", INBOUND_TARGET_RATIO, rate / oneRate,
                    rate >= INBOUND_TARGET_RATIO * oneRate ? "met" : "MISSED", ceiling / oneCeiling) : "";
            rows.add(new Row("cluster", "cluster.inbound_" + n, "ops/s", rate, null, null, null, null, null, null,
                    rounds, ServerFixture.peers("single_instance", singleRate, "amqp_client", ceiling),
                    String.format(Locale.ROOT,
                    "%d events over %d keys dispatched from %d instance(s) in this JVM (the partitions spread over"
                            + " them) through a direct exchange over %d quorum queues, handled once each (dedupe mark in Redis), acked; ops/s from the"
                            + " first dispatch to the last handled, the median of %d rounds; per-key order checked: %d"
                            + " out of order; peer amqp_client: the same events with RabbitMQ's plain client on %d"
                            + " connection(s) to %d quorum queues, no PulseBus%s", events, KEYS, n, PARTITIONS, rounds,
                            disorder, n, PARTITIONS, target))
                    .withRounds(rates));
        }
        rows.add(controlCheck(options));
        rows.add(roundTrip(options));
        return rows;
    }

    /**
     * Two servers in this JVM as one cluster on a PostgreSQL schema of the run's own: {@code /echo n} said on A,
     * open-loop at {@link #E2E_RATE}/s over {@link OpenLoopRooms#ROOMS} rooms, until the bot's reply (handled by
     * whichever holds the room) reaches a poll on B; each trip timed from its scheduled send. Beside it, in turns,
     * the floor: the same load on one server without the cluster on a schema of the same PostgreSQL.
     */
    private static Row roundTrip(BenchOptions options) throws Exception {
        String suffix = Long.toHexString(ThreadLocalRandom.current().nextLong() & Long.MAX_VALUE);
        String schema = "pb_bench_" + suffix;
        String floorSchema = "pb_bench_single_" + suffix;
        try (java.sql.Connection c = java.sql.DriverManager.getConnection(POSTGRES)) {
            c.createStatement().execute("CREATE SCHEMA " + schema);
            c.createStatement().execute("CREATE SCHEMA " + floorSchema);
        } catch (java.sql.SQLException e) {
            return new Row("cluster", "cluster.e2e_roundtrip", "ops/s", null, null, null, null, null, null, null, 0,
                    ServerFixture.peers(), "skipped: no PostgreSQL at " + POSTGRES + " (" + e.getMessage() + ")");
        }
        String ns = "pulsebus-bench-" + suffix;
        String previous = System.getProperty("pulsebus.cluster.namespace");
        System.setProperty("pulsebus.cluster.namespace", ns);
        int warm = options.quick() ? 500 : 10_000; // 20 s: three servers in one JVM compile long
        int perRound = options.quick() ? 1000 : 2500;
        int rounds = options.quick() ? 1 : 3;
        List<Histogram> ours = new ArrayList<>();
        List<Histogram> floor = new ArrayList<>();
        int unanswered = 0;
        int floorUnanswered = 0;
        int failedSays;
        int unseen;
        int floorUnseen;
        List<dev.pulsebus.server.PulseBusServer> servers = new ArrayList<>();
        double[] partsBefore;
        double[] partsAfter;
        double[] floorBefore;
        double[] floorAfter;
        try {
            for (String name : List.of("a", "b", "single")) {
                java.nio.file.Path file = ServerFixture.config(options, "cluster-" + name, "");
                String db = "jdbc_url = \"" + POSTGRES + "&currentSchema=" + (name.equals("single") ? floorSchema : schema)
                        + "\"\n";
                java.nio.file.Files.writeString(file, name.equals("single") ? db : db + "[cluster]\nenabled = true\n"
                        + "instance = \"" + name + "\"\npartitions = " + PARTITIONS + "\n",
                        java.nio.file.StandardOpenOption.APPEND);
                servers.add(dev.pulsebus.server.PulseBusServer.start(
                        dev.pulsebus.server.ServerConfig.load(file, false, java.util.Map.of())));
            }
            waitForSpread(servers.get(0), servers.get(1));
            int trips = warm + rounds * perRound;
            try (OpenLoopRooms cluster = new OpenLoopRooms(servers.get(0).url(), servers.get(1).url(), "e2e-", trips);
                 OpenLoopRooms single = new OpenLoopRooms(servers.get(2).url(), servers.get(2).url(), "e2e-", trips)) {
                Progress.print("cluster.e2e_roundtrip: " + warm + " warm-up trips at " + (long) E2E_RATE + "/s, each");
                cluster.run(0, warm, E2E_RATE, null);
                single.run(0, warm, E2E_RATE, null);
                partsBefore = timerTotals(servers.subList(0, 2), TRIP_PARTS);
                floorBefore = timerTotals(servers.subList(2, 3), TRIP_PARTS);
                for (int r = 0; r < rounds; r++) {
                    int from = warm + r * perRound;
                    Progress.print("cluster.e2e_roundtrip: round " + (r + 1) + ", " + perRound + " trips at "
                            + (long) E2E_RATE + "/s through the cluster, then on one server");
                    Histogram h = new Histogram(TimeUnit.SECONDS.toNanos(60), 3);
                    unanswered += cluster.run(from, from + perRound, E2E_RATE, h);
                    ours.add(h);
                    Histogram f = new Histogram(TimeUnit.SECONDS.toNanos(60), 3);
                    floorUnanswered += single.run(from, from + perRound, E2E_RATE, f);
                    floor.add(f);
                }
                partsAfter = timerTotals(servers.subList(0, 2), TRIP_PARTS);
                floorAfter = timerTotals(servers.subList(2, 3), TRIP_PARTS);
                failedSays = cluster.failedSays();
                unseen = cluster.unseen();
                floorUnseen = single.unseen();
            }
        } finally {
            for (dev.pulsebus.server.PulseBusServer s : servers) {
                s.close();
            }
            if (previous == null) {
                System.clearProperty("pulsebus.cluster.namespace");
            } else {
                System.setProperty("pulsebus.cluster.namespace", previous);
            }
            Cluster.deleteFromBroker(settings("cleanup"), ns);
            try (java.sql.Connection c = java.sql.DriverManager.getConnection(POSTGRES)) {
                c.createStatement().execute("DROP SCHEMA " + schema + " CASCADE");
                c.createStatement().execute("DROP SCHEMA " + floorSchema + " CASCADE");
            }
        }
        double p50 = ServerFixture.medianUs(ours, 50);
        double p99 = ServerFixture.medianUs(ours, 99);
        double floor50 = ServerFixture.medianUs(floor, 50);
        double floor99 = ServerFixture.medianUs(floor, 99);
        boolean met = unanswered == 0 && p99 <= E2E_TARGET_RATIO * floor99;
        Row row = ServerFixture.row("cluster", "cluster.e2e_roundtrip", "us", null, ours.get(0), null,
                ServerFixture.peers(), String.format(Locale.ROOT, "two servers in this JVM as one cluster (PostgreSQL,"
                        + " RabbitMQ, Redis): POST /echo n on A, due open-loop at %.0f/s over %d rooms in turn (64"
                        + " connections), until the bot's reply reaches a long poll of its room on B, timed from the"
                        + " say's due time; %d rounds of %d after %d, each percentile the median of the rounds',"
                        + " interleaved with the floor: the same load on one server without the cluster on the same"
                        + " PostgreSQL (p50 %.0f us, p99 %.0f us; ours/floor p50 %.2fx, p99 %.2fx); unanswered within 30 s"
                        + " %d (floor %d), of which stored but passed over by the room's poll %d (floor %d), says"
                        + " refused %d; %s; target p99 <= %.0fx single_server: %s; p99 <= 10 ms: %s", E2E_RATE,
                        OpenLoopRooms.ROOMS,
                        rounds, perRound, warm, floor50, floor99, p50 / floor50, p99 / floor99, unanswered,
                        floorUnanswered, unseen, floorUnseen, failedSays, String.format(Locale.ROOT, "a trip's parts"
                                + " (means over the measured rounds, both instances; the events are the says):"
                                + " publisher confirm %.0f us, publish to delivery %.0f us, handling on the partition's"
                                + " thread %.0f us (its transcript commits, each a batch of %.0f us, replies waited"
                                + " for), handled to acknowledged (Redis mark) %.0f us, broadcast publish to arrival"
                                + " %.0f us; one server's transcript batch %.0f us",
                                meanUs(partsBefore, partsAfter, 0), meanUs(partsBefore, partsAfter, 1),
                                meanUs(partsBefore, partsAfter, 2), meanUs(partsBefore, partsAfter, 5),
                                meanUs(partsBefore, partsAfter, 3), meanUs(partsBefore, partsAfter, 4),
                                meanUs(floorBefore, floorAfter, 5)), E2E_TARGET_RATIO,
                        met ? "met" : String.format(Locale.ROOT, "MISSED (%.2fx)", p99 / floor99),
                        p99 <= 10_000 ? "met" : "MISSED"));
        return ServerFixture.medianOfRounds(row, ours).withPeerPercentiles("single_server", floor50, floor99);
    }

    /** Waits until each of two servers holds half of the partitions (they spread them within seconds). */
    private static void waitForSpread(dev.pulsebus.server.PulseBusServer a, dev.pulsebus.server.PulseBusServer b)
            throws InterruptedException {
        long by = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (System.nanoTime() < by && (held(a) < PARTITIONS / 2 || held(b) < PARTITIONS / 2)) {
            Thread.sleep(100);
        }
    }

    /** The timers of a trip's parts, as {@link #timerTotals} reads them. */
    private static final List<String> TRIP_PARTS = List.of("pulsebus_cluster_dispatch_confirm",
            "pulsebus_cluster_event_delivery", "pulsebus_cluster_event_handling", "pulsebus_cluster_event_settle",
            "pulsebus_cluster_broadcast_delivery", "pulsebus_transcripts_batch");

    /**
     * Each of {@code timers}' total seconds and count over {@code servers}' {@code /metrics} (every label set summed):
     * {@code [seconds, count]} in the timers' order, pairs one after another.
     */
    private static double[] timerTotals(List<dev.pulsebus.server.PulseBusServer> servers, List<String> timers)
            throws IOException {
        double[] totals = new double[timers.size() * 2];
        for (dev.pulsebus.server.PulseBusServer server : servers) {
            try (dev.pulsebus.bench.http.RawHttp http = new dev.pulsebus.bench.http.RawHttp(server.url().getHost(),
                    server.url().getPort())) {
                for (String line : http.exchange("GET", "/metrics", null).body().lines().toList()) {
                    for (int t = 0; t < timers.size(); t++) {
                        String name = timers.get(t);
                        int at = line.startsWith(name + "_seconds_sum") ? 0 : line.startsWith(name + "_seconds_count") ? 1 : -1;
                        if (at >= 0) {
                            totals[2 * t + at] += Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
                        }
                    }
                }
            }
        }
        return totals;
    }

    /** The mean in microseconds of timer {@code t} between two {@link #timerTotals}; NaN without any. */
    private static double meanUs(double[] before, double[] after, int t) {
        double n = after[2 * t + 1] - before[2 * t + 1];
        return n <= 0 ? Double.NaN : (after[2 * t] - before[2 * t]) / n * 1e6;
    }

    /** {@code pulsebus_cluster_partitions_held} on {@code server}'s {@code /metrics}; 0 when it cannot be read. */
    private static int held(dev.pulsebus.server.PulseBusServer server) {
        try (dev.pulsebus.bench.http.RawHttp http = new dev.pulsebus.bench.http.RawHttp(server.url().getHost(),
                server.url().getPort())) {
            java.util.regex.Matcher m = java.util.regex.Pattern.compile("(?m)^pulsebus_cluster_partitions_held(\\{[^}]*\\})? (\\S+)$")
                    .matcher(http.exchange("GET", "/metrics", null).body());
            return m.find() ? (int) Double.parseDouble(m.group(2)) : 0;
        } catch (IOException e) {
            return 0;
        }
    }

    private static String absent() {
        for (int port : new int[] {5672, 6379}) {
            try (Socket s = new Socket()) {
                s.connect(new InetSocketAddress(java.net.InetAddress.getLoopbackAddress(), port), 1000);
            } catch (IOException e) {
                return "nothing listens on 127.0.0.1:" + port + (port == 5672 ? " (RabbitMQ)" : " (Redis)");
            }
        }
        return null;
    }

    private static ClusterSettings settings(String instance) {
        return new ClusterSettings(true, instance, URI.create(ClusterSettings.DEFAULT_BROKER), PARTITIONS,
                URI.create(ClusterSettings.DEFAULT_REDIS));
    }

    private static byte[] event(int key, int n) {
        return ByteBuffer.allocate(8).putInt(key).putInt(n).array();
    }

    /** Events per second through the broker with {@code instances} joined, and how many arrived out of key order. */
    private static double[] throughBroker(int instances, int events) throws Exception {
        String ns = "pulsebus-bench-" + Long.toHexString(ThreadLocalRandom.current().nextLong() & Long.MAX_VALUE);
        List<Cluster> joined = new ArrayList<>();
        AtomicIntegerArray last = new AtomicIntegerArray(KEYS);
        for (int k = 0; k < KEYS; k++) {
            last.set(k, -1);
        }
        LongAdder handled = new LongAdder();
        LongAdder disorder = new LongAdder();
        AtomicLong lastHandled = new AtomicLong();
        try {
            for (int i = 0; i < instances; i++) {
                Cluster c = Cluster.join(settings("bench-" + i), ns, ns + ":");
                joined.add(c);
                c.start((kind, body, redelivered) -> {
                    ByteBuffer b = ByteBuffer.wrap(body);
                    int key = b.getInt();
                    int n = b.getInt();
                    if (last.getAndSet(key, n) > n) {
                        disorder.increment();
                    }
                    handled.increment();
                    lastHandled.set(System.nanoTime());
                }, (kind, body) -> { }, EventBus.builder().build());
            }
            // the instances spread the partitions (a few seconds); measured once each holds its share
            int share = (PARTITIONS + instances - 1) / instances;
            long spreadBy = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (!spread(joined, share) && System.nanoTime() < spreadBy) {
                Thread.sleep(100);
            }
            if (!spread(joined, share)) {
                throw new IllegalStateException("the " + instances + " instances did not spread " + PARTITIONS
                        + " partitions within 60 s");
            }
            long start = System.nanoTime();
            List<CompletionStage<Void>> confirms = new ArrayList<>(events);
            for (int n = 0; n < events / KEYS; n++) {
                for (int k = 0; k < KEYS; k++) { // a key's events from one instance, in order
                    Cluster via = joined.get(k % instances);
                    confirms.add(via.dispatch("bench", "chat-" + k, ns + "-" + k + "-" + n, event(k, n)));
                }
            }
            CompletableFuture.allOf(confirms.stream().map(CompletionStage::toCompletableFuture)
                    .toArray(CompletableFuture[]::new)).get(120, TimeUnit.SECONDS);
            int total = (events / KEYS) * KEYS;
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
            while (handled.sum() < total && System.nanoTime() < deadline) {
                Thread.sleep(5);
            }
            if (handled.sum() < total) {
                throw new IllegalStateException("only " + handled.sum() + " of " + total + " events handled in 120 s");
            }
            return new double[] {total / ((lastHandled.get() - start) / 1e9), disorder.sum()};
        } finally {
            for (Cluster c : joined) {
                c.close();
            }
            Cluster.deleteFromBroker(settings("cleanup"), ns);
        }
    }

    /** Whether every partition is held, and no instance holds more than {@code share}. */
    private static boolean spread(List<Cluster> joined, int share) {
        int sum = 0;
        for (Cluster c : joined) {
            int held = c.partitionsHeld();
            if (held > share) {
                return false;
            }
            sum += held;
        }
        return sum == PARTITIONS;
    }

    /** The same events through one instance's own ordered lanes (a queue and a thread per partition), no broker. */
    private static double singleInstance(int events) throws Exception {
        List<BlockingQueue<byte[]>> lanes = new ArrayList<>();
        LongAdder handled = new LongAdder();
        AtomicIntegerArray last = new AtomicIntegerArray(KEYS);
        List<Thread> threads = new ArrayList<>();
        for (int p = 0; p < PARTITIONS; p++) {
            BlockingQueue<byte[]> q = new ArrayBlockingQueue<>(1024);
            lanes.add(q);
            threads.add(Thread.ofVirtual().start(() -> {
                try {
                    while (true) {
                        ByteBuffer b = ByteBuffer.wrap(q.take());
                        int key = b.getInt();
                        if (key < 0) {
                            return;
                        }
                        last.set(key, b.getInt());
                        handled.increment();
                    }
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }));
        }
        int total = (events / KEYS) * KEYS;
        long start = System.nanoTime();
        for (int n = 0; n < events / KEYS; n++) {
            for (int k = 0; k < KEYS; k++) {
                lanes.get(Math.floorMod(("chat-" + k).hashCode(), PARTITIONS)).put(event(k, n));
            }
        }
        while (handled.sum() < total) {
            Thread.onSpinWait();
        }
        double rate = total / ((System.nanoTime() - start) / 1e9);
        for (BlockingQueue<byte[]> q : lanes) {
            q.put(event(-1, 0));
        }
        for (Thread t : threads) {
            t.join();
        }
        return rate;
    }

    /** A caller of the checked command, as the pipeline would make it. */
    private record Caller(String userId) implements CommandSource {
        @Override
        public String text() {
            return "/checked";
        }

        @Override
        public String chatId() {
            return "bench";
        }

        @Override
        public CompletionStage<String> reply(String text) {
            return CompletableFuture.completedFuture("");
        }
    }

    private static Row controlCheck(BenchOptions options) throws Exception {
        Duration measure = Duration.ofSeconds(options.quick() ? 2 : 5);
        int callers = 16;
        String ns = "pulsebus-bench-" + Long.toHexString(ThreadLocalRandom.current().nextLong() & Long.MAX_VALUE);
        Command checked = Command.named("checked").cooldown(Duration.ofMillis(1), Scope.USER)
                .rateLimit(1000, Duration.ofSeconds(1), Scope.USER).handler(call -> { });
        CommandRouter local = CommandRouter.builder().helpCommand(false).build();
        local.register(checked);
        Progress.print("cluster.control_check: the router's own tables");
        Object[] localResult = measure(local, callers, measure);
        try (Cluster cluster = Cluster.join(settings("bench-controls"), ns, ns + ":")) {
            CommandRouter shared = CommandRouter.builder().helpCommand(false).sharedControls(cluster.controls()).build();
            shared.register(checked);
            Progress.print("cluster.control_check: in Redis");
            measure(shared, callers, Duration.ofSeconds(1)); // warm-up
            Object[] ours = measure(shared, callers, measure);
            double rate = (double) ours[0];
            Histogram h = (Histogram) ours[1];
            return ServerFixture.row("cluster", "cluster.control_check", "ops/s", rate, h, null,
                    ServerFixture.peers("local_table", (Double) localResult[0]), String.format(Locale.ROOT,
                            "a command with a cooldown and a rate limit (USER scope, 1024 users), routed by %d callers"
                                    + " at once for %d s with its controls in Redis (one Lua script per call for both, on one"
                                    + " connection, pipelined by Lettuce); latency per routed call; local_table: the"
                                    + " same router on its own tables (p99 %s); target >= 20 k ops/s: %s",
                            callers, measure.toSeconds(), ServerFixture.us((Histogram) localResult[1], 99),
                            rate >= CONTROL_TARGET ? "met" : "MISSED"));
        } finally {
            Cluster.deleteFromBroker(settings("cleanup"), ns);
        }
    }

    /** Calls per second and the latency of each (ns) over {@code measure} with {@code callers} threads. */
    private static Object[] measure(CommandRouter router, int callers, Duration measure) throws Exception {
        Recorder recorder = new Recorder(3);
        LongAdder calls = new LongAdder();
        long end = System.nanoTime() + measure.toNanos();
        List<Thread> threads = new ArrayList<>();
        for (int t = 0; t < callers; t++) {
            int id = t;
            threads.add(Thread.ofPlatform().start(() -> {
                int i = 0;
                while (System.nanoTime() < end) {
                    Caller c = new Caller("u" + ((id * 64 + (i++ & 63)) & 1023));
                    long t0 = System.nanoTime();
                    Outcome o = router.route(c);
                    recorder.recordValue(System.nanoTime() - t0);
                    if (o != Outcome.NOT_COMMAND) {
                        calls.increment();
                    }
                }
            }));
        }
        for (Thread t : threads) {
            t.join();
        }
        return new Object[] {calls.sum() / (measure.toNanos() / 1e9), recorder.getIntervalHistogram()};
    }
}
