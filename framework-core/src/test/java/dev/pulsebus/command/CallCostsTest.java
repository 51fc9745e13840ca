package dev.pulsebus.command;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.pulsebus.bus.EventBus;
import dev.pulsebus.internal.CallCosts;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.lang.management.ManagementFactory;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * What the bot's own code costs, per module and per command: an expensive command leads a cheap one, on a
 * platform thread and on a virtual one (a lane worker's), and a call that is not measured costs no bytes.
 */
class CallCostsTest {

    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    /** Keeps the busy loop's result alive. */
    static final AtomicLong SINK = new AtomicLong();

    /** About a millisecond of CPU and a megabyte allocated. */
    static void expensive() {
        long x = 0;
        for (int i = 0; i < 2_000_000; i++) {
            x += i * 31L ^ (x >>> 7);
        }
        byte[] big = new byte[1 << 20];
        big[x == 42 ? 0 : 1] = 1;
        SINK.addAndGet(x + big[1]);
    }

    private CommandRouter router(CallCosts costs) {
        CommandRouter r = CommandRouter.builder().meterRegistry(registry).callCosts(costs).build();
        r.register("heavy", Command.named("crunch").handler(c -> expensive()));
        r.register("light", Command.named("ping").handler(c -> c.reply("pong")));
        return r;
    }

    private static void callBoth(CommandRouter r, int times) {
        for (int i = 0; i < times; i++) {
            r.route(Msg.of("/crunch"));
            r.route(Msg.of("/ping"));
        }
    }

    private static void assertHeavyLeads(CallCosts costs) {
        CallCosts.Report report = costs.report();
        List<String> order = report.modules().stream().map(CallCosts.ModuleReport::module).toList();
        assertThat(order).containsExactly("heavy", "light");
        CallCosts.ModuleReport heavy = report.modules().get(0);
        CallCosts.ModuleReport light = report.modules().get(1);
        assertThat(heavy.total().measured()).isPositive();
        assertThat(light.total().measured()).isPositive();
        assertThat(heavy.total().cpuPerCall()).as("a busy loop of ~1 ms")
                .isGreaterThan(100_000).isGreaterThan(20 * light.total().cpuPerCall());
        // the JVM's count of a thread's bytes may miss part of a buffer being retired as it is read
        assertThat(heavy.total().bytesPerCall()).as("a 1 MiB array").isGreaterThan(1 << 19);
        assertThat(light.total().bytesPerCall()).isLessThan(100_000);
        assertThat(heavy.sites()).singleElement().satisfies(s -> {
            assertThat(s.kind()).isEqualTo("command");
            assertThat(s.name()).isEqualTo("crunch");
        });
        assertThat(report.processCpuNanos()).isGreaterThanOrEqualTo(heavy.window().cpuNanos() / 2);
    }

    @Test
    void anExpensiveCommandLeadsACheapOneWithItsCpuAndBytes() {
        CallCosts costs = CallCosts.create(registry, 1);
        callBoth(router(costs), 20);
        assertHeavyLeads(costs);
        assertThat(registry.get("pulsebus.module.cpu").tag("module", "heavy").functionCounter().count())
                .isGreaterThan(20 * 100e-6);
        assertThat(registry.get("pulsebus.module.allocated").tag("module", "heavy").functionCounter().count())
                .isGreaterThan(20.0 * (1 << 19));
        assertThat(registry.get("pulsebus.module.invocations").tag("module", "heavy").functionCounter().count())
                .as("each call of ~1 ms measured").isEqualTo(20);
        assertThat(costs.report().modules().get(1).total().calls()).as("cheap calls: counted in the report")
                .isEqualTo(20);
        assertThat(registry.get("pulsebus.command.cpu").tag("command", "crunch").tag("module", "heavy").timer()
                .count()).isEqualTo(20);
    }

    @Test
    void onAVirtualThreadTheCarriersCountersAreRead() throws Exception {
        CallCosts costs = CallCosts.create(registry, 1);
        CommandRouter r = router(costs);
        Thread t = Thread.ofVirtual().start(() -> callBoth(r, 20));
        t.join();
        assertHeavyLeads(costs);
    }

    @Test
    void moduleHandlersOnTheBusAreMeasuredAndTheBotsOwnAreNot() {
        CallCosts costs = CallCosts.create(registry, 1);
        EventBus bus = EventBus.builder().meterRegistry(registry).callCosts(costs).build();
        bus.on(String.class).name("heavy").subscribe(s -> expensive());
        bus.on(String.class).name("light/greeter").subscribe(s -> SINK.incrementAndGet());
        bus.on(String.class).subscribe(s -> expensive()); // no module: the bot's own
        for (int i = 0; i < 10; i++) {
            bus.publish("event " + i);
        }
        CallCosts.Report report = costs.report();
        assertThat(report.modules()).extracting(CallCosts.ModuleReport::module).containsExactly("heavy", "light");
        assertThat(report.modules().get(0).total().calls()).isEqualTo(10);
        assertThat(report.modules().get(0).total().cpuPerCall()).isGreaterThan(100_000);
        assertThat(report.modules().get(1).sites()).singleElement()
                .satisfies(s -> assertThat(s.name()).isEqualTo("light/greeter"));
    }

    @Test
    void oneCallInTheSamplingIsMeasuredAndStandsForTheOthers() {
        CallCosts costs = CallCosts.create(registry, 4);
        CommandRouter r = router(costs);
        for (int i = 0; i < 9; i++) {
            r.route(Msg.of("/crunch"));
        }
        CallCosts.Figures heavy = costs.report().modules().get(0).total();
        assertThat(heavy.measured()).as("the 1st, the 5th and the 9th").isEqualTo(3);
        assertThat(heavy.calls()).isEqualTo(9);
    }

    @Test
    void veryShortCallsAreMeasuredLessOftenThanAsked() {
        CallCosts costs = CallCosts.create(registry, 1);
        CommandRouter r = CommandRouter.builder().callCosts(costs).build();
        r.register("tiny", Command.named("t").handler(c -> { }));
        Msg m = Msg.of("/t");
        for (int i = 0; i < 20_000; i++) {
            r.route(m);
        }
        CallCosts.Figures tiny = costs.report().modules().get(0).total();
        assertThat(tiny.measured()).as("reading four counters costs more than 1%% of a call that does nothing")
                .isLessThan(2_000);
        assertThat(tiny.calls()).as("each measured call stands for those since the previous one")
                .isEqualTo(20_000);
    }

    @Test
    void aCallThatIsNotMeasuredAllocatesNothing() {
        var threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        CallCosts costs = CallCosts.create(registry, CallCosts.MAX_INTERVAL);
        CommandRouter r = CommandRouter.builder().callCosts(costs).build();
        r.register("tiny", Command.named("t").handler(c -> { }));
        Msg m = Msg.of("/t");
        for (int i = 0; i < 50_000; i++) { // warm: compiled, and the first (measured) call behind
            r.route(m);
        }
        CommandRouter plain = CommandRouter.builder().build();
        plain.register("tiny", Command.named("t").handler(c -> { }));
        for (int i = 0; i < 50_000; i++) {
            plain.route(m);
        }
        long withCosts = allocated(threads, () -> r.route(m));
        long without = allocated(threads, () -> plain.route(m));
        assertThat(withCosts).as("bytes for 10,000 unmeasured calls, beside a router without costs: %s", without)
                .isLessThanOrEqualTo(without + 1024);
    }

    private static long allocated(com.sun.management.ThreadMXBean threads, Runnable call) {
        long best = Long.MAX_VALUE;
        for (int round = 0; round < 5; round++) {
            long before = threads.getCurrentThreadAllocatedBytes();
            for (int i = 0; i < 10_000; i++) {
                call.run();
            }
            best = Math.min(best, threads.getCurrentThreadAllocatedBytes() - before);
        }
        return best;
    }

    @Test
    void offMeasuresNothingAndTheSamplingIsBounded() {
        CallCosts off = CallCosts.create(registry, 0);
        assertThat(off.site("m", "command", "x")).isNull();
        assertThat(off.report().modules()).isEmpty();
        assertThat(CallCosts.create(registry, 16).site(CallCosts.NO_MODULE, "handler", "x")).isNull();
        assertThatThrownBy(() -> CallCosts.create(registry, -1)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> CallCosts.create(registry, CallCosts.MAX_INTERVAL + 1))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
