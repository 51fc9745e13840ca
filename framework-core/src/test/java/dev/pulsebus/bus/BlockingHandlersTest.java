package dev.pulsebus.bus;

import static org.assertj.core.api.Assertions.assertThat;

import dev.pulsebus.bus.TestEvents.GroupMessage;
import dev.pulsebus.bus.TestEvents.PrivateMessage;
import dev.pulsebus.testing.Await;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(value = 60, unit = TimeUnit.SECONDS) // a broken bus or writer hangs rather than fails: make it fail
class BlockingHandlersTest {

    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();

    @Test
    void blockingHandlerRunsOnAVirtualThreadNotThePublisher() throws Exception {
        try (EventBus bus = EventBus.builder().build()) {
            CountDownLatch ran = new CountDownLatch(1);
            List<Thread> threads = new CopyOnWriteArrayList<>();
            bus.on(GroupMessage.class).blocking().subscribe(m -> {
                threads.add(Thread.currentThread());
                ran.countDown();
            });

            bus.publish(new GroupMessage(1, "x"));

            assertThat(ran.await(10, TimeUnit.SECONDS)).isTrue();
            assertThat(threads.get(0)).isNotSameAs(Thread.currentThread());
            assertThat(threads.get(0).isVirtual()).isTrue();
            assertThat(threads.get(0).getName()).startsWith("pulsebus-blocking-");
        }
    }

    @Test
    void publisherDoesNotWaitForABlockedHandler() throws Exception {
        CountDownLatch release = new CountDownLatch(1);
        try (EventBus bus = EventBus.builder().build()) {
            AtomicInteger done = new AtomicInteger();
            bus.on(GroupMessage.class).blocking().subscribe(m -> {
                release.await();
                done.incrementAndGet();
            });

            for (int chat = 0; chat < 10; chat++) {
                assertThat(bus.publish(new GroupMessage(chat, "x"))).isEqualTo(1);
            }

            assertThat(done).hasValue(0);
            release.countDown();
        }
    }

    @Test
    void boundOnPendingTasksDropsAndCountsTheOverflow() throws Exception {
        CountDownLatch release = new CountDownLatch(1);
        EventBus bus = EventBus.builder().meterRegistry(registry).maxBlockingPending(2).build();
        AtomicInteger ran = new AtomicInteger();
        bus.on(GroupMessage.class).blocking().subscribe(m -> {
            release.await();
            ran.incrementAndGet();
        });

        int[] delivered = new int[5];
        for (int i = 0; i < 5; i++) {
            delivered[i] = bus.publish(new GroupMessage(i, "x"));
        }

        assertThat(delivered).containsExactly(1, 1, 0, 0, 0);
        assertThat(registry.get("pulsebus.bus.blocking.rejected").functionCounter().count()).isEqualTo(3);
        assertThat(registry.get("pulsebus.bus.blocking.pending").gauge().value()).isEqualTo(2);
        release.countDown();
        bus.close();
        assertThat(ran).hasValue(2);
    }

    @Test
    void overflowWaitLetsThePublisherWaitForRoom() throws Exception {
        EventBus bus = EventBus.builder().meterRegistry(registry).maxBlockingPending(1)
                .blockingOverflowWait(Duration.ofSeconds(10)).build();
        AtomicInteger ran = new AtomicInteger();
        bus.on(GroupMessage.class).blocking().subscribe(m -> {
            Thread.sleep(5);
            ran.incrementAndGet();
        });

        for (int i = 0; i < 20; i++) {
            assertThat(bus.publish(new GroupMessage(i, "x"))).isEqualTo(1);
        }
        bus.close();

        assertThat(ran).hasValue(20);
        assertThat(registry.find("pulsebus.bus.blocking.rejected").meters()).isEmpty(); // unbound on close
    }

    @Test
    void eventsOfOneChatRunInPublishOrderAndNeverOverlapUnderManyPublishers() throws Exception {
        int chats = 8;
        int publishers = 4;
        int perPublisherPerChat = 300;
        Map<Long, AtomicInteger> inside = new ConcurrentHashMap<>();
        Map<String, Integer> lastSeq = new ConcurrentHashMap<>();
        List<String> violations = new CopyOnWriteArrayList<>();
        AtomicInteger handled = new AtomicInteger();
        EventBus bus = EventBus.builder().meterRegistry(registry).maxBlockingPending(64)
                .blockingOverflowWait(Duration.ofSeconds(30)).build();
        bus.on(GroupMessage.class).blocking().subscribe(m -> {
            if (inside.computeIfAbsent(m.group(), k -> new AtomicInteger()).incrementAndGet() != 1) {
                violations.add("overlap in chat " + m.group());
            }
            // text carries the publisher; seq is that publisher's own order for this chat
            String stream = m.group() + "/" + m.text();
            Integer prev = lastSeq.put(stream, m.seq());
            if (prev != null && prev >= m.seq()) {
                violations.add(stream + " saw " + m.seq() + " after " + prev);
            }
            if (m.seq() % 50 == 0) {
                Thread.sleep(1);
            }
            inside.get(m.group()).decrementAndGet();
            handled.incrementAndGet();
        });

        CountDownLatch done = new CountDownLatch(publishers);
        for (int p = 0; p < publishers; p++) {
            String publisher = "p" + p;
            Thread.ofPlatform().start(() -> {
                for (int seq = 0; seq < perPublisherPerChat; seq++) {
                    for (long chat = 0; chat < chats; chat++) {
                        bus.publish(new GroupMessage(chat, publisher, seq));
                    }
                }
                done.countDown();
            });
        }
        assertThat(done.await(60, TimeUnit.SECONDS)).isTrue();
        bus.close();

        assertThat(violations).isEmpty();
        assertThat(handled).hasValue(chats * publishers * perPublisherPerChat);
        assertThat(((DefaultEventBus) bus).lanes().busyKeys()).isZero();
    }

    @Test
    void differentChatsRunConcurrently() throws Exception {
        CountDownLatch bothInside = new CountDownLatch(2);
        try (EventBus bus = EventBus.builder().build()) {
            AtomicInteger timedOut = new AtomicInteger();
            bus.on(GroupMessage.class).blocking().subscribe(m -> {
                bothInside.countDown();
                if (!bothInside.await(10, TimeUnit.SECONDS)) {
                    timedOut.incrementAndGet();
                }
            });
            bus.publish(new GroupMessage(1, "a"));
            bus.publish(new GroupMessage(2, "b"));
            assertThat(bothInside.await(10, TimeUnit.SECONDS)).isTrue();
            assertThat(timedOut).hasValue(0);
        }
    }

    @Test
    void explicitOrderingKeyOverridesTheEventsOwn() throws Exception {
        List<String> order = new CopyOnWriteArrayList<>();
        try (EventBus bus = EventBus.builder().build()) {
            // one key for everything: a strict global order
            bus.on(PrivateMessage.class).blocking(m -> "all").subscribe(m -> {
                if (m.text().equals("0")) {
                    Thread.sleep(20);
                }
                order.add(m.text());
            });
            for (int i = 0; i < 20; i++) {
                bus.publish(new PrivateMessage(i, Integer.toString(i)));
            }
        }
        assertThat(order).containsExactly("0", "1", "2", "3", "4", "5", "6", "7", "8", "9",
                "10", "11", "12", "13", "14", "15", "16", "17", "18", "19");
    }

    @Test
    void throwingBlockingHandlerIsCountedAndTheLaneKeepsGoing() throws Exception {
        AtomicInteger ran = new AtomicInteger();
        EventBus bus = EventBus.builder().meterRegistry(registry).build();
        bus.on(GroupMessage.class).blocking().subscribe(m -> {
            ran.incrementAndGet();
            if (m.seq() % 2 == 0) {
                throw new IllegalStateException("even " + m.seq());
            }
        });
        for (int i = 0; i < 10; i++) {
            bus.publish(new GroupMessage(1, "x", i));
        }
        long timed = waitForTimerCount(10);
        double errors = registry.get("pulsebus.handler.errors").functionCounter().count();
        bus.close();

        assertThat(ran).hasValue(10);
        assertThat(errors).isEqualTo(5);
        assertThat(timed).isEqualTo(5); // failed calls are counted as errors, not timed
    }

    private long waitForTimerCount(long atLeast) throws Exception {
        boolean met = Await.until(Duration.ofSeconds(10), Duration.ofMillis(5), () ->
                registry.get("pulsebus.handler.errors").functionCounter().count() + timed() >= atLeast);
        return met ? timed() : -1;
    }

    private long timed() {
        return registry.get("pulsebus.handler.duration").tag("mode", "blocking").timer().count();
    }

    @Test
    void closeWaitsForAcceptedBlockingTasks() {
        AtomicInteger ran = new AtomicInteger();
        EventBus bus = EventBus.builder().build();
        bus.on(GroupMessage.class).blocking().subscribe(m -> {
            Thread.sleep(50);
            ran.incrementAndGet();
        });
        for (int chat = 0; chat < 5; chat++) {
            bus.publish(new GroupMessage(chat, "x"));
        }

        bus.close();

        assertThat(ran).hasValue(5);
    }
}
