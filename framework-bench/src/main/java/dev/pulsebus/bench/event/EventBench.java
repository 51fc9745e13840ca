package dev.pulsebus.bench.event;

import com.google.common.eventbus.AsyncEventBus;
import com.google.common.eventbus.EventBus;
import dev.pulsebus.bus.EventHandler;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.Consumer;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.infra.Blackhole;

/**
 * The event suite. Method names are {@code <row>__<peer>}: {@code pulsebus} is ours, the others are peers
 * on the same events and the same handler work in the same run. Every handler feeds its event to JMH's
 * {@link Blackhole}, so the JIT cannot remove the dispatch.
 *
 * <p>PulseBus runs as a server would: with a Micrometer registry bound (per-type counters on, inline
 * handler latency sampled at the default rate).
 */
@State(Scope.Benchmark)
public class EventBench {

    static final int FLOOD = 1000;
    /** Blocking rows keep this many events in flight per invocation, spread over {@link #CHATS} chats. */
    static final int BLOCKING_BATCH = 256;
    static final int CHATS = 16;

    private final BenchEvent event = new BenchEvent(42, 7);
    private final BenchEvent[] chatEvents = new BenchEvent[CHATS];

    private dev.pulsebus.bus.EventBus oneHandler;
    private dev.pulsebus.bus.EventBus tenHandlers;
    private dev.pulsebus.bus.EventBus blocking;
    private EventBus guavaOne;
    private EventBus guavaTen;
    private AsyncEventBus guavaBlocking;
    private EventHandler<BenchEvent> direct;
    private EventHandler<BenchEvent>[] directTen;
    private ExecutorService virtualThreads;
    private final Completions done = new Completions();
    private EventHandler<BenchEvent> countingHandler;

    @Setup(Level.Trial)
    public void setUp(Blackhole bh) {
        for (int i = 0; i < CHATS; i++) {
            chatEvents[i] = new BenchEvent(i, i);
        }
        direct = bh::consume;
        directTen = tenDistinctHandlers(bh);

        oneHandler = instrumentedBus();
        oneHandler.subscribe(BenchEvent.class, direct);
        tenHandlers = instrumentedBus();
        for (EventHandler<BenchEvent> h : directTen) {
            tenHandlers.subscribe(BenchEvent.class, h);
        }
        countingHandler = e -> done.one();
        blocking = dev.pulsebus.bus.EventBus.builder().meterRegistry(new SimpleMeterRegistry())
                .maxBlockingPending(BLOCKING_BATCH * 4).build();
        blocking.on(BenchEvent.class).blocking().subscribe(countingHandler);

        guavaOne = new EventBus("one");
        guavaOne.register(new GuavaSinks.Sink(bh::consume));
        guavaTen = new EventBus("ten");
        for (EventHandler<BenchEvent> h : directTen) {
            guavaTen.register(new GuavaSinks.Sink(sneaky(h)));
        }
        virtualThreads = Executors.newVirtualThreadPerTaskExecutor();
        guavaBlocking = new AsyncEventBus("blocking", virtualThreads);
        guavaBlocking.register(new GuavaSinks.Counting(done));
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        oneHandler.close();
        tenHandlers.close();
        blocking.close();
        virtualThreads.close();
    }

    private static dev.pulsebus.bus.EventBus instrumentedBus() {
        return dev.pulsebus.bus.EventBus.builder().meterRegistry(new SimpleMeterRegistry()).build();
    }

    /** Ten handlers of ten classes, as ten modules would register: no call site sees only one. */
    @SuppressWarnings({"rawtypes", "unchecked"}) // a generic array
    private static EventHandler<BenchEvent>[] tenDistinctHandlers(Blackhole bh) {
        return new EventHandler[] {
            (EventHandler<BenchEvent>) bh::consume,
            (EventHandler<BenchEvent>) e -> bh.consume(e.n()),
            (EventHandler<BenchEvent>) e -> bh.consume(e.chat()),
            (EventHandler<BenchEvent>) e -> bh.consume(e.n() + 1),
            (EventHandler<BenchEvent>) e -> bh.consume(e.chat() + 1),
            (EventHandler<BenchEvent>) e -> bh.consume(e.n() ^ 3),
            (EventHandler<BenchEvent>) e -> bh.consume(e.chat() ^ 5),
            (EventHandler<BenchEvent>) e -> bh.consume(e.n() * 7),
            (EventHandler<BenchEvent>) e -> bh.consume(e.chat() * 11),
            (EventHandler<BenchEvent>) e -> bh.consume(e.n() - e.chat()),
        };
    }

    private static Consumer<Object> sneaky(EventHandler<BenchEvent> h) {
        return e -> {
            try {
                h.handle((BenchEvent) e);
            } catch (Exception ex) {
                throw new IllegalStateException(ex);
            }
        };
    }

    // ---- event.single_handler: publish -> one inline handler done

    @Benchmark
    public int single_handler__pulsebus() {
        return oneHandler.publish(event);
    }

    @Benchmark
    public void single_handler__guava_eventbus() {
        guavaOne.post(event);
    }

    @Benchmark
    public void single_handler__direct_call() throws Exception {
        direct.handle(event);
    }

    // ---- event.flood_1000: 1000 events back to back to one handler

    @Benchmark
    @OperationsPerInvocation(FLOOD)
    public void flood_1000__pulsebus(Blackhole bh) {
        for (int i = 0; i < FLOOD; i++) {
            bh.consume(oneHandler.publish(chatEvents[i & (CHATS - 1)]));
        }
    }

    @Benchmark
    @OperationsPerInvocation(FLOOD)
    public void flood_1000__guava_eventbus() {
        for (int i = 0; i < FLOOD; i++) {
            guavaOne.post(chatEvents[i & (CHATS - 1)]);
        }
    }

    @Benchmark
    @OperationsPerInvocation(FLOOD)
    public void flood_1000__direct_call() throws Exception {
        for (int i = 0; i < FLOOD; i++) {
            direct.handle(chatEvents[i & (CHATS - 1)]);
        }
    }

    /** Latency of one round of 1000 (the row's percentiles are per round). */
    @Benchmark
    public void flood_1000__pulsebus_round(Blackhole bh) {
        for (int i = 0; i < FLOOD; i++) {
            bh.consume(oneHandler.publish(chatEvents[i & (CHATS - 1)]));
        }
    }

    // ---- event.ten_handlers: one event, ten handlers

    @Benchmark
    public int ten_handlers__pulsebus() {
        return tenHandlers.publish(event);
    }

    @Benchmark
    public void ten_handlers__guava_eventbus() {
        guavaTen.post(event);
    }

    @Benchmark
    public void ten_handlers__direct_call() throws Exception {
        for (EventHandler<BenchEvent> h : directTen) {
            h.handle(event);
        }
    }

    // ---- event.blocking_handler: publish -> handler on a virtual thread done

    @Benchmark
    @OperationsPerInvocation(BLOCKING_BATCH)
    public void blocking_handler__pulsebus() {
        long target = done.expect(BLOCKING_BATCH);
        for (int i = 0; i < BLOCKING_BATCH; i++) {
            blocking.publish(chatEvents[i & (CHATS - 1)]);
        }
        done.await(target);
    }

    @Benchmark
    @OperationsPerInvocation(BLOCKING_BATCH)
    public void blocking_handler__guava_eventbus() {
        long target = done.expect(BLOCKING_BATCH);
        for (int i = 0; i < BLOCKING_BATCH; i++) {
            guavaBlocking.post(chatEvents[i & (CHATS - 1)]);
        }
        done.await(target);
    }

    /** The ceiling: the handler handed straight to a new virtual thread, no dispatch, no ordering. */
    @Benchmark
    @OperationsPerInvocation(BLOCKING_BATCH)
    public void blocking_handler__direct_call() {
        long target = done.expect(BLOCKING_BATCH);
        for (int i = 0; i < BLOCKING_BATCH; i++) {
            BenchEvent e = chatEvents[i & (CHATS - 1)];
            virtualThreads.execute(() -> {
                try {
                    countingHandler.handle(e);
                } catch (Exception ex) {
                    throw new IllegalStateException(ex);
                }
            });
        }
        done.await(target);
    }

    // ---- event.blocking_handler_contended: the same with a CPU hog thread per core running (CpuHog)

    @Benchmark
    @OperationsPerInvocation(BLOCKING_BATCH)
    public void blocking_handler_contended__pulsebus(CpuHog hog) {
        blocking_handler__pulsebus();
    }

    @Benchmark
    @OperationsPerInvocation(BLOCKING_BATCH)
    public void blocking_handler_contended__guava_eventbus(CpuHog hog) {
        blocking_handler__guava_eventbus();
    }

    /** Latency of one event alone: publish, then wait until its handler has run on its virtual thread. */
    @Benchmark
    public void blocking_handler__pulsebus_round() {
        long target = done.expect(1);
        blocking.publish(event);
        done.awaitSpinning(target);
    }
}
