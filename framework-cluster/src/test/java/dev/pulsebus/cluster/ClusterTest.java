package dev.pulsebus.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.pulsebus.bus.EventBus;
import dev.pulsebus.module.ScheduleClaims;
import dev.pulsebus.testing.Await;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.ThreadLocalRandom;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Instances joined to a real RabbitMQ and Redis in one JVM, each with its own connections: events handled once,
 * in order per key, redelivered in order after an instance drops, recognised when already handled; clustered
 * events on every bus. (The same with the server in child processes: framework-http's ClusterIT.)
 */
class ClusterTest {

    private final List<Cluster> open = new ArrayList<>();
    private String namespace = "";
    private String prefix = "";

    @BeforeEach
    void engines() {
        Servers.require("RabbitMQ", Servers.RABBITMQ_PORT, "ClusterTest");
        Servers.require("Redis", Servers.REDIS_PORT, "ClusterTest");
        namespace = "pulsebus-test-" + Long.toHexString(ThreadLocalRandom.current().nextLong() & Long.MAX_VALUE);
        prefix = Servers.prefix();
    }

    @AfterEach
    void close() throws Exception {
        for (Cluster c : open) {
            c.close();
        }
        Cluster.deleteFromBroker(settings("cleanup"), namespace);
    }

    private static ClusterSettings settings(String name) {
        return new ClusterSettings(true, name, URI.create(ClusterSettings.DEFAULT_BROKER), 8,
                URI.create("redis://127.0.0.1:" + Servers.REDIS_PORT));
    }

    private Cluster join(String name) throws Exception {
        Cluster c = Cluster.join(settings(name), namespace, prefix);
        open.add(c);
        return c;
    }

    record Handled(String instance, String key, int n, boolean redelivered) {
    }

    private static byte[] body(String key, int n) {
        return (key + " " + n).getBytes(StandardCharsets.UTF_8);
    }

    private static Cluster.EventHandler recording(String instance, List<Handled> into) {
        return (kind, body, redelivered) -> {
            String[] kn = new String(body, StandardCharsets.UTF_8).split(" ");
            into.add(new Handled(instance, kn[0], Integer.parseInt(kn[1]), redelivered));
        };
    }

    @Test
    void threeInstancesHandleEveryEventOnceInOrderPerKey() throws Exception {
        List<Handled> handled = new CopyOnWriteArrayList<>();
        List<Cluster> three = List.of(join("a"), join("b"), join("c"));
        for (Cluster c : three) {
            c.start(recording(c.instance(), handled), (k, b) -> { }, EventBus.builder().build());
        }
        int keys = 30;
        int each = 40;
        for (int n = 0; n < each; n++) {
            for (int k = 0; k < keys; k++) {
                Cluster via = three.get((n * keys + k) % 3);
                via.dispatch("t", "chat" + k, "e-" + k + "-" + n, body("chat" + k, n)).toCompletableFuture()
                        .get(10, TimeUnit.SECONDS);
            }
        }
        assertThat(Await.until(Duration.ofSeconds(60), () -> handled.size() >= keys * each)).isTrue();
        Thread.sleep(200); // nothing more arrives
        assertThat(handled).hasSize(keys * each);
        Map<String, List<Integer>> byKey = new ConcurrentHashMap<>();
        for (Handled h : handled) { // a key may move (the instances spread the partitions meanwhile): in order still
            byKey.computeIfAbsent(h.key(), k -> new ArrayList<>()).add(h.n());
        }
        for (List<Integer> ns : byKey.values()) {
            assertThat(ns).isSorted().doesNotHaveDuplicates().hasSize(each);
        }
    }

    @Test
    void aDroppedInstancesUnacknowledgedEventsGoToAnotherInOrderMarkedRedelivered() throws Exception {
        List<Handled> handled = new CopyOnWriteArrayList<>();
        CountDownLatch stuck = new CountDownLatch(1);
        Cluster a = join("a");
        a.start((kind, body, redelivered) -> {
            stuck.countDown();
            Thread.sleep(60_000); // holds the first event, unacknowledged, until its connection drops
        }, (k, b) -> { }, EventBus.builder().build());
        Cluster b = join("b");
        b.start(recording("b", handled), (k, x) -> { }, EventBus.builder().build());
        for (int n = 0; n < 20; n++) {
            a.dispatch("t", "room", "r-" + n, body("room", n)).toCompletableFuture().get(10, TimeUnit.SECONDS);
        }
        assertThat(stuck.await(10, TimeUnit.SECONDS)).as("a holds the room's partition").isTrue();
        long dropped = System.nanoTime();
        a.abort();
        assertThat(Await.until(Duration.ofSeconds(10), () -> handled.size() >= 20)).isTrue();
        System.out.printf("[pulsebus] ClusterTest: b took the partition over and handled 20 events %d ms after a dropped%n",
                TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - dropped));
        assertThat(handled.stream().map(Handled::n).toList()).as("in order").isSorted().doesNotHaveDuplicates().hasSize(20);
        assertThat(handled.get(0).redelivered()).as("the one a had started is marked").isTrue();
    }

    @Test
    void instancesThatJoinOneAfterAnotherSpreadThePartitionsAndKeepEachKeysOrder() throws Exception {
        List<Handled> handled = new CopyOnWriteArrayList<>();
        List<Cluster> joined = new ArrayList<>();
        java.util.concurrent.atomic.AtomicBoolean sending = new java.util.concurrent.atomic.AtomicBoolean(true);
        int keys = 16;
        int[] sent = new int[keys];
        Map<String, java.util.concurrent.atomic.AtomicInteger> gained = new ConcurrentHashMap<>();
        Cluster first = join("a");
        gained.put("a", new java.util.concurrent.atomic.AtomicInteger());
        first.onPartitionGained(gained.get("a")::incrementAndGet);
        first.start(recording("a", handled), (k, b) -> { }, EventBus.builder().build());
        joined.add(first);
        Thread sender = Thread.ofVirtual().start(() -> { // events all along, so partitions move with events in flight
            for (int n = 0; sending.get(); n++) {
                for (int k = 0; k < keys; k++) {
                    try {
                        first.dispatch("t", "chat" + k, "s-" + k + "-" + n, body("chat" + k, n)).toCompletableFuture()
                                .get(10, TimeUnit.SECONDS);
                        sent[k] = n + 1;
                    } catch (Exception e) {
                        throw new AssertionError(e);
                    }
                }
            }
        });
        assertThat(Await.until(Duration.ofSeconds(10), () -> first.partitionsHeld() == 8)).as("a alone holds all")
                .isTrue();
        assertThat(gained.get("a")).as("a was given each partition once").hasValue(8);
        for (String name : List.of("b", "c")) {
            Cluster c = join(name);
            gained.put(name, new java.util.concurrent.atomic.AtomicInteger());
            c.onPartitionGained(gained.get(name)::incrementAndGet);
            c.start(recording(name, handled), (k, b) -> { }, EventBus.builder().build());
            joined.add(c);
        }
        boolean spread = Await.until(Duration.ofSeconds(40), () -> {
            int sum = 0;
            for (Cluster c : joined) {
                int held = c.partitionsHeld();
                if (held < 2 || held > 3) {
                    return false;
                }
                sum += held;
            }
            return sum == 8;
        });
        sending.set(false);
        sender.join();
        System.out.printf("[pulsebus] ClusterTest: partitions held a %d, b %d, c %d; stepped back %d times%n",
                joined.get(0).partitionsHeld(), joined.get(1).partitionsHeld(), joined.get(2).partitionsHeld(),
                joined.stream().mapToLong(c -> c.steppedBack()).sum());
        assertThat(spread).as("8 partitions over 3 instances: 2 or 3 each").isTrue();
        for (int i = 1; i < 3; i++) {
            assertThat(gained.get(List.of("a", "b", "c").get(i)).get()).as("told of each partition it was given")
                    .isGreaterThanOrEqualTo(joined.get(i).partitionsHeld());
        }
        int total = java.util.Arrays.stream(sent).sum();
        assertThat(Await.until(Duration.ofSeconds(30), () -> handled.size() >= total)).isTrue();
        Thread.sleep(300);
        Map<String, List<Integer>> byKey = new ConcurrentHashMap<>();
        for (Handled h : handled) {
            byKey.computeIfAbsent(h.key(), k -> new ArrayList<>()).add(h.n());
        }
        for (int k = 0; k < keys; k++) {
            assertThat(byKey.get("chat" + k)).as("chat%d: each once, in order, across the moves", k)
                    .isSorted().doesNotHaveDuplicates().hasSize(sent[k]);
        }
    }

    /**
     * An instance that leaves (SIGTERM) finishes and acknowledges the event it is handling before it closes its
     * connection: the next holder does not get it again.
     */
    @Test
    void anInstanceThatLeavesFinishesTheEventItIsHandlingFirst() throws Exception {
        CountDownLatch started = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        List<String> onA = new CopyOnWriteArrayList<>();
        Cluster a = join("a");
        a.start((kind, body, redelivered) -> {
            onA.add(new String(body, StandardCharsets.UTF_8));
            started.countDown();
            release.await(10, TimeUnit.SECONDS);
        }, (k, b) -> { }, EventBus.builder().build());
        assertThat(Await.until(Duration.ofSeconds(10), () -> a.partitionsHeld() == 8)).as("a holds all").isTrue();
        a.dispatch("t", "chat", "leaving-1", body("chat", 1)).toCompletableFuture().get(10, TimeUnit.SECONDS);
        assertThat(started.await(10, TimeUnit.SECONDS)).as("a handles it").isTrue();
        List<String> onB = new CopyOnWriteArrayList<>();
        Cluster b = join("b");
        b.start((kind, body, redelivered) -> onB.add(new String(body, StandardCharsets.UTF_8)), (k, x) -> { },
                EventBus.builder().build());
        Thread leaving = Thread.ofVirtual().start(a::close);
        Thread.sleep(300);
        release.countDown(); // the event a is handling ends now
        leaving.join(10_000);
        open.remove(a); // closed
        assertThat(Await.until(Duration.ofSeconds(10), () -> b.partitionsHeld() == 8)).as("b took over").isTrue();
        b.dispatch("t", "chat", "after-1", body("chat", 2)).toCompletableFuture().get(10, TimeUnit.SECONDS);
        assertThat(Await.until(Duration.ofSeconds(10), () -> onB.contains("chat 2"))).isTrue();
        assertThat(onA).containsExactly("chat 1");
        assertThat(onB).as("the event a finished is not handled again").containsExactly("chat 2");
    }

    @Test
    void copiesOfAnEventHandedOverByTwoInstancesAreHandledOnceWithTheirKind() throws Exception {
        Cluster a = join("a");
        Cluster b = join("b");
        List<String> got = new CopyOnWriteArrayList<>();
        a.start((kind, body, redelivered) -> got.add(kind + " " + new String(body, StandardCharsets.UTF_8)),
                (k, x) -> { }, EventBus.builder().build());
        for (int n = 1; n <= 3; n++) { // each event received by both, b's copy sometimes first
            Cluster first = n % 2 == 0 ? b : a;
            Cluster second = first == a ? b : a;
            for (Cluster via : List.of(first, second)) {
                via.dispatchCopy("platform", "chat", "onebot:e" + n, body("chat", n)).toCompletableFuture()
                        .get(10, TimeUnit.SECONDS);
            }
        }
        a.dispatch("room", "chat", "plain", body("chat", 4)).toCompletableFuture().get(10, TimeUnit.SECONDS);
        assertThat(Await.until(Duration.ofSeconds(10), () -> got.size() >= 4)).isTrue();
        Thread.sleep(300);
        assertThat(got).containsExactly("platform chat 1", "platform chat 2", "platform chat 3", "room chat 4");
        assertThat(a.redisState().copiesDropped.sum()).as("the second copies").isEqualTo(3);
    }

    @Test
    void anEventHandledBeforeItsInstanceDroppedIsNotHandledAgain() throws Exception {
        List<Handled> handled = new CopyOnWriteArrayList<>();
        Cluster a = join("a");
        Cluster[] self = {a};
        a.start((kind, body, redelivered) -> {
            String[] kn = new String(body, StandardCharsets.UTF_8).split(" ");
            handled.add(new Handled("a", kn[0], Integer.parseInt(kn[1]), redelivered));
            // Done and recorded as done (what the broker does once this returns), then dropped before the
            // acknowledgement. Dropping here, before the broker's own markDone, raced b's check of the set.
            self[0].redisState().markDone("once", Cluster.DEDUPE_TTL_MILLIS);
            self[0].abort();
        }, (k, b) -> { }, EventBus.builder().build());
        Cluster b = join("b");
        List<String> answeredAgain = new CopyOnWriteArrayList<>();
        Cluster.EventHandler recording = recording("b", handled);
        b.start(new Cluster.EventHandler() {
            @Override
            public void handle(String kind, byte[] body, boolean redelivered) throws Exception {
                recording.handle(kind, body, redelivered);
            }

            @Override
            public void handledBefore(String kind, byte[] body) {
                answeredAgain.add(kind + " " + new String(body, StandardCharsets.UTF_8));
            }
        }, (k, x) -> { }, EventBus.builder().build());
        b.dispatch("t", "room", "once", body("room", 0)).toCompletableFuture().get(10, TimeUnit.SECONDS);
        b.dispatch("t", "room", "next", body("room", 1)).toCompletableFuture().get(10, TimeUnit.SECONDS);
        assertThat(Await.until(Duration.ofSeconds(10), () -> handled.size() >= 2)).isTrue();
        Thread.sleep(300);
        assertThat(handled).extracting(Handled::n).containsExactly(0, 1);
        assertThat(answeredAgain).as("given to the handler as handled before, for an answer that may be lost")
                .containsExactly("t room 0");
        assertThat(b.redisState().dedupeHits.sum()).as("recognised in the dedupe set").isEqualTo(1);
    }

    @Test
    void aBrokerConnectionCutIsShownAndRecoveredAndEventsFlowAgain() throws Exception {
        try (dev.pulsebus.testing.TcpProxy proxy = new dev.pulsebus.testing.TcpProxy(Servers.RABBITMQ_PORT)) {
            ClusterSettings s = new ClusterSettings(true, "a", URI.create("amqp://guest:guest@127.0.0.1:" + proxy.port()),
                    8, URI.create("redis://127.0.0.1:" + Servers.REDIS_PORT));
            Cluster a = Cluster.join(s, namespace, prefix);
            open.add(a);
            List<Handled> handled = new CopyOnWriteArrayList<>();
            a.start(recording("a", handled), (k, b) -> { }, EventBus.builder().build());
            assertThat(a.health()).containsEntry("status", "UP").containsEntry("broker", "UP");
            proxy.cut();
            assertThat(Await.until(Duration.ofSeconds(10), () -> !a.brokerUp())).isTrue();
            assertThat(a.health()).containsEntry("status", "DOWN").containsEntry("broker", "DOWN");
            proxy.restore();
            assertThat(Await.until(Duration.ofSeconds(15), a::brokerUp)).as("the client reconnects by itself").isTrue();
            assertThat(Await.until(Duration.ofSeconds(15), () -> {
                try {
                    a.dispatch("t", "room", "after-" + System.nanoTime(), body("room", handled.size()))
                            .toCompletableFuture().get(2, TimeUnit.SECONDS);
                    return true;
                } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
                    return false; // the publisher channel is still recovering
                }
            })).isTrue();
            assertThat(Await.until(Duration.ofSeconds(15), () -> !handled.isEmpty()))
                    .as("its consumers are back: the event is handled").isTrue();
        }
    }

    @Test
    void anInstanceWithAnotherPartitionCountIsRefusedSayingWhy() throws Exception {
        join("a"); // 8 partitions: its queues are the cluster's record on the broker
        ClusterSettings fewer = new ClusterSettings(true, "b", URI.create(ClusterSettings.DEFAULT_BROKER), 4,
                URI.create("redis://127.0.0.1:" + Servers.REDIS_PORT));
        ClusterSettings more = new ClusterSettings(true, "c", URI.create(ClusterSettings.DEFAULT_BROKER), 12,
                URI.create("redis://127.0.0.1:" + Servers.REDIS_PORT));
        assertThatThrownBy(() -> Cluster.join(fewer, namespace, prefix)).isInstanceOf(java.io.IOException.class)
                .hasMessageContaining("has more than 4 partitions").hasMessageContaining("cluster.partitions");
        assertThatThrownBy(() -> Cluster.join(more, namespace, prefix)).isInstanceOf(java.io.IOException.class)
                .hasMessageContaining("has fewer than 12 partitions");
        join("d"); // the same count still joins
    }

    @Test
    void aKeysPartitionIsFixedAndKeysSpreadOverThePartitions() {
        // fixed: every instance, JVM and release computes the same partition (a change here re-routes live chats)
        assertThat(Broker.partition("http/lobby", 16)).isEqualTo(Broker.partition("http/lobby", 16));
        assertThat(List.of(Broker.partition("http/lobby", 16), Broker.partition("onebot11:10001/group:1", 64),
                Broker.partition("", 8))).containsExactly(14, 57, 0);
        int[] counts = new int[16];
        for (int i = 0; i < 16_000; i++) {
            counts[Broker.partition("http/room" + i, 16)]++;
        }
        assertThat(java.util.Arrays.stream(counts).boxed().toList()).allSatisfy(n -> assertThat(n).isBetween(800, 1200));
    }

    @Test
    void aFullPartitionRefusesNewEventsAndCountsThem() throws Exception {
        Cluster a = Cluster.join(settings("a"), namespace, prefix, 5); // nobody consumes: the queue fills
        open.add(a);
        int accepted = 0;
        int refused = 0;
        for (int n = 0; n < 20; n++) {
            try {
                a.dispatch("t", "room", "full-" + n, body("room", n)).toCompletableFuture().get(10, TimeUnit.SECONDS);
                accepted++;
            } catch (java.util.concurrent.ExecutionException e) {
                assertThat(e.getCause()).hasMessageContaining("queue is full");
                refused++;
            }
        }
        // a quorum queue checks its length as a message arrives: it may take one past the bound
        assertThat(accepted).isBetween(5, 6);
        assertThat(refused).isEqualTo(20 - accepted);
        assertThat(a.refused()).isEqualTo(refused);
    }

    record Announcement(String text, int n) {
    }

    @Test
    void aScheduledTimeIsClaimedByOneInstanceOnlyAndOneRunOfAJobGoesAtATime() throws Exception {
        ScheduleClaims a = join("a").scheduleClaims();
        ScheduleClaims b = join("b").scheduleClaims();
        Instant nine = Instant.parse("2026-12-02T09:00:00Z");
        Duration hold = Duration.ofMinutes(2);
        String digest = "digest/0 9 * * */Z";

        assertThat(b.claim(digest, nine, hold)).isEqualTo(ScheduleClaims.Claim.RUN);
        assertThat(a.claim(digest, nine, hold)).isEqualTo(ScheduleClaims.Claim.ELSEWHERE);
        assertThat(b.claim(digest, nine, hold)).as("asked again").isEqualTo(ScheduleClaims.Claim.ELSEWHERE);
        assertThat(a.claim(digest + "#2", nine, hold)).as("another job alike").isEqualTo(ScheduleClaims.Claim.RUN);
        Instant next = nine.plusSeconds(86_400);
        assertThat(a.claim(digest, next, hold)).as("b's run of 09:00 still goes").isEqualTo(ScheduleClaims.Claim.BUSY);
        a.ended(digest, next); // not a's run: b's mark stays
        assertThat(b.claim(digest, next, hold)).as("busy for every instance").isEqualTo(ScheduleClaims.Claim.BUSY);

        b.ended(digest, nine);
        assertThat(a.claim(digest, next, hold)).as("b's run ended").isEqualTo(ScheduleClaims.Claim.RUN);
        assertThat(b.claim(digest, next, hold)).isEqualTo(ScheduleClaims.Claim.ELSEWHERE);
        a.ended(digest, next);
        assertThat(b.claim(digest, next.plusSeconds(86_400), Duration.ofMillis(200)))
                .isEqualTo(ScheduleClaims.Claim.RUN);
        assertThat(Await.until(Duration.ofSeconds(5), () -> a.claim(digest, next.plusSeconds(2 * 86_400), hold)
                == ScheduleClaims.Claim.RUN)).as("a run's mark lapses after its hold (its instance died)").isTrue();
    }

    @Test
    void aClusteredEventReachesEveryInstancesBusAndAPlainPublishStaysLocal() throws Exception {
        List<String> seen = new CopyOnWriteArrayList<>();
        List<Cluster> three = List.of(join("a"), join("b"), join("c"));
        for (Cluster c : three) {
            EventBus bus = EventBus.builder().build();
            bus.subscribe(Announcement.class, e -> seen.add(c.instance() + ":" + e.text() + e.n()));
            c.events().register(Announcement.class);
            c.start((kind, body, r) -> { }, (k, b) -> { }, bus);
            if (c.instance().equals("a")) {
                bus.publish(new Announcement("local", 0));
            }
        }
        three.get(0).events().publish(new Announcement("all", 1));
        assertThat(Await.until(Duration.ofSeconds(10), () -> seen.size() >= 4)).isTrue();
        Thread.sleep(200);
        assertThat(seen).containsExactlyInAnyOrder("a:local0", "a:all1", "b:all1", "c:all1");
    }
}
