package dev.pulsebus.bench.module;

import dev.pulsebus.bus.EventBus;
import dev.pulsebus.command.CommandRouter;
import dev.pulsebus.module.BotModule;
import dev.pulsebus.module.ModuleContext;
import dev.pulsebus.module.ModuleHost;
import dev.pulsebus.module.Service;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * {@code module.call}: one module calls another's service through its {@link Service} handle (a
 * volatile read, a counted call, then a plain interface call), beside the same interface called directly.
 */
@State(Scope.Benchmark)
public class ModuleBench {

    private ModuleHost host;
    private EventBus bus;
    private Service<Forecasts> service;
    private Forecasts direct;
    private int n;

    /** The provider: a little arithmetic, so the call does something the JIT must keep. */
    static final class WeatherModule implements BotModule {
        @Override
        public String name() {
            return "weather";
        }

        @Override
        public void onLoad(ModuleContext ctx) {
            ctx.provide(Forecasts.class, city -> city * 31 + 7);
        }
    }

    @Setup(Level.Trial)
    public void setUp() {
        bus = EventBus.create();
        host = ModuleHost.builder(bus, CommandRouter.builder().build()).build();
        host.load(new WeatherModule());
        Service<?>[] got = new Service<?>[1];
        host.load(new BotModule() {
            @Override
            public String name() {
                return "caller";
            }

            @Override
            public void onLoad(ModuleContext ctx) {
                got[0] = ctx.service(Forecasts.class);
            }
        });
        @SuppressWarnings("unchecked")
        Service<Forecasts> s = (Service<Forecasts>) got[0];
        service = s;
        direct = service.get();
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        host.close();
        bus.close();
    }

    @Benchmark
    public int call__pulsebus() {
        return service.get().forecast(n++);
    }

    @Benchmark
    public int call__direct_call() {
        return direct.forecast(n++);
    }
}
