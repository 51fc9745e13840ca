package dev.pulsebus.bus;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import dev.pulsebus.bus.TestEvents.GroupMessage;
import dev.pulsebus.bus.TestEvents.MemberJoined;
import dev.pulsebus.bus.TestEvents.MessageEvent;
import dev.pulsebus.bus.TestEvents.PrivateMessage;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.slf4j.LoggerFactory;

@Timeout(value = 60, unit = TimeUnit.SECONDS) // a broken bus or writer hangs rather than fails: make it fail
class EventBusTest {

    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    private final List<Object> dead = new CopyOnWriteArrayList<>();
    private final EventBus bus = EventBus.builder().meterRegistry(registry).deadEvents(dead::add).build();
    private final List<String> seen = new CopyOnWriteArrayList<>();
    private final Logger busLogger = (Logger) LoggerFactory.getLogger(EventBus.class);
    private final ListAppender<ILoggingEvent> log = new ListAppender<>();

    @AfterEach
    void close() {
        bus.close();
        busLogger.detachAppender(log);
    }

    @Test
    void deliversToSubscribersOfTheExactType() {
        bus.subscribe(MemberJoined.class, e -> seen.add("joined " + e.user()));

        int delivered = bus.publish(new MemberJoined(1, 42));

        assertThat(delivered).isEqualTo(1);
        assertThat(seen).containsExactly("joined 42");
    }

    @Test
    void supertypeSubscribersReceiveSubtypes() {
        bus.subscribe(MessageEvent.class, e -> seen.add("message " + e.text()));
        bus.subscribe(GroupMessage.class, e -> seen.add("group " + e.text()));
        bus.subscribe(Object.class, e -> seen.add("object " + e.getClass().getSimpleName()));

        bus.publish(new GroupMessage(1, "hi"));
        bus.publish(new PrivateMessage(2, "psst"));
        bus.publish(new MemberJoined(1, 2));

        assertThat(seen).containsExactly(
                "message hi", "group hi", "object GroupMessage",
                "message psst", "object PrivateMessage",
                "object MemberJoined");
    }

    @Test
    void higherPriorityRunsFirstAndEqualPrioritiesKeepSubscriptionOrder() {
        bus.on(GroupMessage.class).priority(-5).subscribe(e -> seen.add("low"));
        bus.on(GroupMessage.class).subscribe(e -> seen.add("zero-a"));
        bus.on(MessageEvent.class).priority(10).subscribe(e -> seen.add("high"));
        bus.on(Object.class).subscribe(e -> seen.add("zero-b"));
        bus.on(GroupMessage.class).subscribe(e -> seen.add("zero-c"));
        bus.on(GroupMessage.class).priority(Integer.MIN_VALUE).subscribe(e -> seen.add("min"));
        bus.on(GroupMessage.class).priority(Integer.MAX_VALUE).subscribe(e -> seen.add("max"));

        bus.publish(new GroupMessage(1, "x"));

        assertThat(seen).containsExactly("max", "high", "zero-a", "zero-b", "zero-c", "low", "min");
    }

    @Test
    void filterDecidesWhichEventsReachTheHandler() {
        bus.on(GroupMessage.class).filter(m -> m.group() == 7).filter(m -> !m.text().isEmpty())
                .subscribe(m -> seen.add(m.group() + ":" + m.text()));

        bus.publish(new GroupMessage(7, "yes"));
        bus.publish(new GroupMessage(8, "other group"));
        bus.publish(new GroupMessage(7, ""));

        assertThat(seen).containsExactly("7:yes");
        assertThat(dead).hasSize(2);
    }

    @Test
    void onceFiresForTheFirstAcceptedEventOnly() {
        Subscription s = bus.on(GroupMessage.class).filter(m -> m.group() == 2).once()
                .subscribe(m -> seen.add(m.text()));

        bus.publish(new GroupMessage(1, "filtered"));
        bus.publish(new GroupMessage(2, "first"));
        bus.publish(new GroupMessage(2, "second"));

        assertThat(seen).containsExactly("first");
        assertThat(s.isActive()).isFalse();
    }

    @Test
    void onceFiresExactlyOnceUnderConcurrentPublishers() throws Exception {
        AtomicInteger fired = new AtomicInteger();
        bus.on(GroupMessage.class).once().subscribe(m -> fired.incrementAndGet());
        int threads = 8;
        CyclicBarrier start = new CyclicBarrier(threads);
        List<Thread> publishers = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            publishers.add(Thread.ofPlatform().start(() -> {
                try {
                    start.await();
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
                for (int i = 0; i < 1_000; i++) {
                    bus.publish(new GroupMessage(1, "race"));
                }
            }));
        }
        for (Thread p : publishers) {
            p.join();
        }
        assertThat(fired).hasValue(1);
    }

    @Test
    void closingASubscriptionCancelsIt() {
        try (Subscription s = bus.subscribe(GroupMessage.class, m -> seen.add(m.text()))) {
            bus.publish(new GroupMessage(1, "inside"));
            assertThat(s.isActive()).isTrue();
        }
        bus.publish(new GroupMessage(1, "after"));

        assertThat(seen).containsExactly("inside");
    }

    @Test
    void cancelledSubscriptionNoLongerReceives() {
        Subscription s = bus.subscribe(GroupMessage.class, m -> seen.add(m.text()));
        bus.publish(new GroupMessage(1, "before"));

        s.cancel();
        s.cancel();
        bus.publish(new GroupMessage(1, "after"));

        assertThat(seen).containsExactly("before");
        assertThat(s.isActive()).isFalse();
        assertThat(dead).hasSize(1);
    }

    @Test
    void cancellingALaterHandlerDuringDispatchSkipsItForTheEventInFlight() {
        AtomicReference<Subscription> later = new AtomicReference<>();
        bus.on(GroupMessage.class).priority(1).subscribe(m -> {
            seen.add("first");
            later.get().cancel();
        });
        later.set(bus.subscribe(GroupMessage.class, m -> seen.add("later")));

        bus.publish(new GroupMessage(1, "x"));
        bus.publish(new GroupMessage(1, "y"));

        assertThat(seen).containsExactly("first", "first");
    }

    @Test
    void handlerCancellingItselfFinishesAndIsGoneForTheNextEvent() {
        AtomicReference<Subscription> self = new AtomicReference<>();
        self.set(bus.subscribe(GroupMessage.class, m -> {
            self.get().cancel();
            seen.add("ran " + m.text());
        }));
        bus.subscribe(GroupMessage.class, m -> seen.add("other " + m.text()));

        bus.publish(new GroupMessage(1, "a"));
        bus.publish(new GroupMessage(1, "b"));

        assertThat(seen).containsExactly("ran a", "other a", "other b");
    }

    @Test
    void subscribingDuringDispatchTakesEffectFromTheNextEvent() {
        bus.subscribe(GroupMessage.class, m -> {
            seen.add("outer " + m.text());
            if (m.text().equals("a")) {
                bus.subscribe(GroupMessage.class, n -> seen.add("inner " + n.text()));
            }
        });

        bus.publish(new GroupMessage(1, "a"));
        bus.publish(new GroupMessage(1, "b"));

        assertThat(seen).containsExactly("outer a", "outer b", "inner b");
    }

    @Test
    void interceptorStopsPropagationToLaterHandlers() {
        bus.on(GroupMessage.class).priority(100)
                .intercept(m -> m.text().contains("spam") ? Propagation.STOP : Propagation.CONTINUE);
        bus.on(GroupMessage.class).priority(100).subscribe(m -> seen.add("same priority, later"));
        bus.on(GroupMessage.class).subscribe(m -> seen.add("handler " + m.text()));
        bus.on(GroupMessage.class).blocking().subscribe(m -> seen.add("blocking " + m.text()));

        int spamDelivered = bus.publish(new GroupMessage(1, "buy spam"));
        int hamDelivered = bus.publish(new GroupMessage(1, "hello"));
        bus.close();

        assertThat(spamDelivered).isEqualTo(1);
        assertThat(hamDelivered).isEqualTo(4);
        assertThat(seen).containsExactly("same priority, later", "handler hello", "blocking hello");
        assertThat(dead).isEmpty();
    }

    @Test
    void blockingSubscriptionCannotIntercept() {
        assertThatThrownBy(() -> bus.on(GroupMessage.class).blocking().intercept(m -> Propagation.STOP))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("cannot stop propagation");
    }

    @Test
    void throwingHandlerDoesNotStopOthersAndIsCountedAndLoggedOnceWithItsName() {
        log.start();
        busLogger.addAppender(log);
        bus.subscribe(GroupMessage.class, m -> seen.add("before"));
        bus.on(GroupMessage.class).name("broken-greeter").subscribe(m -> {
            throw new IllegalStateException("boom " + m.text());
        });
        bus.subscribe(GroupMessage.class, m -> seen.add("after"));

        bus.publish(new GroupMessage(1, "one"));
        bus.publish(new GroupMessage(1, "two"));
        bus.publish(new GroupMessage(1, "three"));

        assertThat(seen).containsExactly("before", "after", "before", "after", "before", "after");
        assertThat(registry.get("pulsebus.handler.errors").tag("type", GroupMessage.class.getName())
                .functionCounter().count()).isEqualTo(3);
        assertThat(log.list).hasSize(1);
        ILoggingEvent line = log.list.get(0);
        assertThat(line.getFormattedMessage()).contains("broken-greeter").contains(GroupMessage.class.getName());
        assertThat(line.getThrowableProxy().getMessage()).isEqualTo("boom one");
    }

    @Test
    void throwingFilterCountsAsAFailureAndRefusesTheEvent() {
        bus.on(GroupMessage.class).filter(m -> {
            throw new IllegalArgumentException("bad filter");
        }).subscribe(m -> seen.add("never"));

        bus.publish(new GroupMessage(1, "x"));

        assertThat(seen).isEmpty();
        assertThat(dead).hasSize(1);
        assertThat(registry.get("pulsebus.handler.errors").functionCounter().count()).isEqualTo(1);
    }

    @Test
    void deadEventHookSeesEventsNoOneHandled() {
        bus.subscribe(GroupMessage.class, m -> seen.add(m.text()));
        MemberJoined nobodyListens = new MemberJoined(1, 2);

        int delivered = bus.publish(nobodyListens);
        bus.publish(new GroupMessage(1, "handled"));

        assertThat(delivered).isZero();
        assertThat(dead).containsExactly(nobodyListens);
        assertThat(registry.get("pulsebus.events.dead").functionCounter().count()).isEqualTo(1);
    }

    @Test
    void countsPublishedEventsPerTypeInMicrometer() {
        bus.subscribe(Object.class, e -> { });
        for (int i = 0; i < 5; i++) {
            bus.publish(new GroupMessage(1, "x"));
        }
        bus.publish(new MemberJoined(1, 2));

        assertThat(registry.get("pulsebus.events.published").tag("type", GroupMessage.class.getName())
                .functionCounter().count()).isEqualTo(5);
        assertThat(registry.get("pulsebus.events.published").tag("type", MemberJoined.class.getName())
                .functionCounter().count()).isEqualTo(1);
        assertThat(registry.get("pulsebus.bus.subscriptions").gauge().value()).isEqualTo(1);
    }

    @Test
    void samplesInlineHandlerLatencyIntoATimer() {
        SimpleMeterRegistry own = new SimpleMeterRegistry(); // one bus per registry
        EventBus everyEvent = EventBus.builder().meterRegistry(own).latencySampling(1).build();
        everyEvent.subscribe(GroupMessage.class, m -> { });
        for (int i = 0; i < 10; i++) {
            everyEvent.publish(new GroupMessage(1, "x"));
        }
        assertThat(own.get("pulsebus.handler.duration").tag("mode", "inline")
                .tag("type", GroupMessage.class.getName()).timer().count()).isEqualTo(10);
        everyEvent.close();
    }

    @Test
    void closeRefusesPublishesAndRemovesMeters() {
        bus.subscribe(GroupMessage.class, m -> { });
        bus.publish(new GroupMessage(1, "x"));

        bus.close();

        assertThatThrownBy(() -> bus.publish(new GroupMessage(1, "late")))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("closed");
        assertThat(registry.find("pulsebus.events.published").meters()).isEmpty();
        assertThat(registry.find("pulsebus.bus.blocking.pending").meters()).isEmpty();
    }

    @Test
    void publishersAndSubscriptionChurnRunConcurrentlyWithoutLosingEvents() throws Exception {
        AtomicInteger steady = new AtomicInteger();
        bus.subscribe(GroupMessage.class, m -> steady.incrementAndGet());
        int publishers = 4;
        int perPublisher = 20_000;
        CountDownLatch done = new CountDownLatch(publishers);
        List<Throwable> errors = new CopyOnWriteArrayList<>();
        for (int t = 0; t < publishers; t++) {
            Thread.ofPlatform().start(() -> {
                try {
                    for (int i = 0; i < perPublisher; i++) {
                        bus.publish(new GroupMessage(i % 16, "m"));
                    }
                } catch (Throwable e) {
                    errors.add(e);
                } finally {
                    done.countDown();
                }
            });
        }
        while (done.getCount() > 0) {
            Subscription s = bus.on(MessageEvent.class).priority(5).subscribe(m -> { });
            s.cancel();
        }
        assertThat(done.await(30, TimeUnit.SECONDS)).isTrue();
        assertThat(errors).isEmpty();
        assertThat(steady).hasValue(publishers * perPublisher);
    }

    @Test
    void derivedNameShowsTheEventTypeAndTheHandlersOwner() {
        Subscription s = bus.subscribe(GroupMessage.class, m -> { });
        assertThat(s.name()).isEqualTo("GroupMessage -> " + EventBusTest.class.getName() + " (lambda)");
    }

    @Test
    void builderRejectsNonsense() {
        assertThatThrownBy(() -> EventBus.builder().latencySampling(3))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("power of two");
        assertThatThrownBy(() -> EventBus.builder().maxBlockingPending(0))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
