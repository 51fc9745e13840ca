package dev.pulsebus.irc;

import dev.pulsebus.bus.EventBus;
import dev.pulsebus.command.Command;
import dev.pulsebus.command.CommandRouter;
import dev.pulsebus.config.Section;
import dev.pulsebus.kv.Kv;
import dev.pulsebus.pipeline.Adapter;
import dev.pulsebus.pipeline.MessagePipeline;
import dev.pulsebus.platform.HttpRoutes;
import dev.pulsebus.platform.InstanceMessaging;
import dev.pulsebus.platform.Platform;
import dev.pulsebus.platform.PlatformContext;
import dev.pulsebus.platform.PlatformProvider;
import dev.pulsebus.testing.MemoryKvStore;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Clock;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

/**
 * A bot as the server would run one: the IRC provider's settings read from a section, its platform created
 * with a {@link PlatformContext} whose adapters go to a real {@link MessagePipeline} with a
 * {@link CommandRouter} holding {@code echo} (answers its arguments), {@code lines <n>} (answers n lines,
 * {@code line 1} ... , one reply each) and {@code long <text>} (answers the text given to {@link #longText}).
 */
final class TestBot implements AutoCloseable {

    final SimpleMeterRegistry meters = new SimpleMeterRegistry();
    final EventBus bus = EventBus.builder().build();
    final CommandRouter router = CommandRouter.builder().build();
    final List<Adapter> adapters = new ArrayList<>();
    final Platform platform;
    final MessagePipeline pipeline;
    volatile String longText = "";

    /** The settings of {@code [adapters.irc]} as written in a file, {@code key -> value text}. */
    static Map<String, String> settings(String... keyValues) {
        Map<String, String> m = new LinkedHashMap<>();
        m.put("enabled", "true");
        m.put("server", "127.0.0.1");
        m.put("tls", "false");
        for (int i = 0; i < keyValues.length; i += 2) {
            m.put(keyValues[i], keyValues[i + 1]);
        }
        return m;
    }

    static IrcSettings read(Map<String, String> values) {
        IrcProvider p = new IrcProvider();
        return p.read(Section.of("adapters.irc", values, Map.of(), p.keys(), "test"),
                PlatformProvider.Deployment.ALONE);
    }

    TestBot(Map<String, String> values) throws Exception {
        this(read(values), IrcAdapter.Timing.DEFAULT);
    }

    TestBot(IrcSettings settings, IrcAdapter.Timing timing) throws Exception {
        router.register(Command.named("echo").handler(c -> c.reply(c.rest())));
        router.register(Command.named("lines").handler(c -> {
            int n = Integer.parseInt(c.rest().trim());
            for (int i = 1; i <= n; i++) {
                c.reply("line " + i);
            }
        }));
        router.register(Command.named("long").handler(c -> c.reply(longText)));
        Context ctx = new Context();
        if (timing == IrcAdapter.Timing.DEFAULT) {
            platform = new IrcProvider().create(settings, ctx);
        } else {
            IrcAdapter a = new IrcAdapter(settings, timing, Clock.systemUTC(), meters);
            ctx.adapter(a);
            platform = IrcProvider.platform(a);
        }
        MessagePipeline.Builder b = MessagePipeline.builder(bus).commands(router);
        adapters.forEach(b::adapter);
        pipeline = b.build().start();
    }

    IrcAdapter adapter() {
        return (IrcAdapter) adapters.get(0);
    }

    /** A text of {@code n} lines, {@code "line 1"} ... */
    static String numbered(int n) {
        return IntStream.rangeClosed(1, n).mapToObj(i -> "line " + i).collect(Collectors.joining("\n"));
    }

    @Override
    public void close() throws Exception {
        pipeline.close();
        bus.close();
    }

    /** What the provider may use: its adapters go to the pipeline built after. */
    private final class Context implements PlatformContext {
        private final Kv kv = new MemoryKvStore().namespace("irc");

        @Override
        public String instance() {
            return "test";
        }

        @Override
        public void adapter(Adapter adapter) {
            adapters.add(adapter);
        }

        @Override
        public Kv kv() {
            return kv;
        }

        @Override
        public MeterRegistry meters() {
            return meters;
        }

        @Override
        public Clock clock() {
            return Clock.systemUTC();
        }

        @Override
        public HttpRoutes http() {
            return HttpRoutes.none("irc");
        }

        @Override
        public Optional<InstanceMessaging> cluster() {
            return Optional.empty();
        }
    }
}
