package dev.pulsebus.bench.module;

import dev.pulsebus.bench.harness.BenchOptions;
import dev.pulsebus.bench.harness.JmhSuite;
import dev.pulsebus.bench.harness.Progress;
import dev.pulsebus.bench.harness.Row;
import dev.pulsebus.bench.harness.ServerFixture;
import dev.pulsebus.bench.harness.Suite;
import dev.pulsebus.bus.EventBus;
import dev.pulsebus.command.CommandRouter;
import dev.pulsebus.module.ModuleHost;
import dev.pulsebus.testing.ModuleJars;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.HdrHistogram.Histogram;

/**
 * The {@code module} suite. {@code module.call} under JMH beside a direct interface call;
 * {@code module.load_unload}: a small module compiled into a jar here, loaded (own class loader,
 * a command, a subscription, a service, a timer) and unloaded over and over; cycles per second, the
 * latency of one cycle, and the heap after a full GC before and after, which must stay flat.
 */
public final class ModuleSuite implements Suite {

    @Override
    public String name() {
        return "module";
    }

    @Override
    public List<Row> run(BenchOptions options) throws Exception {
        List<Row> rows = new ArrayList<>(new JmhSuite("module", ModuleBench.class, List.of("direct_call"), List.of(
                new JmhSuite.RowSpec("call", false, "a service call through the caller's Service handle (counted)",
                        JmhSuite.Target.ratioTo("direct_call", 0.5)))).run(options));
        rows.add(loadUnload(options));
        return rows;
    }

    private Row loadUnload(BenchOptions options) throws Exception {
        Path dir = Files.createDirectories(options.dataDir().resolve("module"));
        Path jar = ModuleJars.build(dir, "tiny", "tiny", "TinyModule", "TinyModule.java", """
                package tiny;

                import dev.pulsebus.command.Command;
                import dev.pulsebus.module.BotModule;
                import dev.pulsebus.module.ModuleContext;
                import java.time.Duration;

                public final class TinyModule implements BotModule {
                    public String name() { return "tiny"; }
                    public void onLoad(ModuleContext ctx) {
                        ctx.commands().register(Command.named("tiny").handler(call -> call.reply("tiny")));
                        ctx.bus().subscribe(String.class, s -> { });
                        ctx.provide(Runnable.class, () -> { });
                        ctx.every(Duration.ofSeconds(60), () -> { });
                    }
                }
                """);
        int warm = options.quick() ? 100 : 200;
        int cycles = 1000;
        Histogram h = new Histogram(TimeUnit.SECONDS.toNanos(60), 3);
        EventBus bus = EventBus.create();
        long before;
        long after;
        double seconds;
        try (ModuleHost host = ModuleHost.builder(bus, CommandRouter.builder().build()).build()) {
            Progress.print("module.load_unload: " + warm + " warm-up cycles, then " + cycles);
            for (int i = 0; i < warm; i++) {
                host.load(jar);
                host.unload("tiny");
            }
            before = heapAfterGc();
            long t0 = System.nanoTime();
            for (int i = 0; i < cycles; i++) {
                long s = System.nanoTime();
                host.load(jar);
                host.unload("tiny");
                h.recordValue(System.nanoTime() - s);
            }
            seconds = (System.nanoTime() - t0) / 1e9;
            after = heapAfterGc();
        } finally {
            bus.close();
        }
        double growthKb = (after - before) / 1024.0;
        boolean flat = after - before <= 1 << 20;
        return ServerFixture.row("module", "module.load_unload", "cycles/s", cycles / seconds, h, null,
                ServerFixture.peers(), String.format("load and unload a jar module (own class loader, a command, a"
                        + " subscription, a service, a timer), %d cycles after %d warm-up; heap after a full GC %+.0f KB"
                        + " over the cycles; target flat within 1 MB: %s", cycles, warm, growthKb,
                        flat ? "met" : "MISSED"));
    }

    /** Heap used after full collections (several, so class unloading and finalization settle). */
    private static long heapAfterGc() throws InterruptedException {
        var memory = ManagementFactory.getMemoryMXBean();
        long used = Long.MAX_VALUE;
        for (int i = 0; i < 5; i++) {
            System.gc();
            Thread.sleep(50);
            used = Math.min(used, memory.getHeapMemoryUsage().getUsed());
        }
        return used;
    }
}
