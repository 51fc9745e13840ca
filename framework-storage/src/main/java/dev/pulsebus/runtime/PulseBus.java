package dev.pulsebus.runtime;

import dev.pulsebus.bus.EventBus;
import dev.pulsebus.command.CommandRouter;
import dev.pulsebus.command.SharedControls;
import dev.pulsebus.config.Config;
import dev.pulsebus.config.ConfigChanged;
import dev.pulsebus.config.ConfigException;
import dev.pulsebus.config.ConfigSnapshot;
import dev.pulsebus.event.ChatRef;
import dev.pulsebus.internal.CallCosts;
import dev.pulsebus.internal.HeapShare;
import dev.pulsebus.internal.HostName;
import dev.pulsebus.internal.SlowTraces;
import dev.pulsebus.internal.Shutdown;
import dev.pulsebus.kv.Kv;
import dev.pulsebus.module.BotModule;
import dev.pulsebus.module.ModuleException;
import dev.pulsebus.module.ModuleHost;
import dev.pulsebus.module.Modules;
import dev.pulsebus.module.Routes;
import dev.pulsebus.module.ScheduleClaims;
import dev.pulsebus.pipeline.Adapter;
import dev.pulsebus.pipeline.MessagePipeline;
import dev.pulsebus.platform.HttpRoutes;
import dev.pulsebus.platform.InstanceMessaging;
import dev.pulsebus.platform.Platform;
import dev.pulsebus.platform.PlatformContext;
import dev.pulsebus.platform.PlatformSection;
import dev.pulsebus.storage.SharedSeq;
import dev.pulsebus.storage.Storage;
import dev.pulsebus.transcript.TranscriptWriter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.observation.ObservationRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.IntFunction;
import java.util.function.Predicate;
import java.util.function.UnaryOperator;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A bot without the HTTP server: storage, the bus, the command router, transcripts, the pipeline, the modules
 * and the configured platforms, assembled from {@link RuntimeSettings} and shut down in order (the adapters
 * stop, the modules unload, handled messages finish and their replies are recorded, transcripts and KV writes
 * flush, storage closes). The standalone server composes one and adds its listener.
 *
 * <pre>{@code
 * try (PulseBus bot = PulseBus.builder()
 *         .settings(RuntimeSettings.load(Path.of("config/pulsebus.toml"), System.getenv()))
 *         .module(new MyModule())
 *         .start()) {
 *     bot.awaitClose(); // until another thread closes it
 * }
 * }</pre>
 *
 * <p>{@link Builder#build()} opens storage, the bus, the router, the live configuration and transcripts;
 * {@link #start()} then creates the platforms and the pipeline and loads the modules, after which events flow.
 * A failed start closes what it opened. Thread-safe after start.
 */
public final class PulseBus implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(PulseBus.class);

    private final Builder b;
    private final RuntimeSettings settings;
    private final String instance;
    private final MeterRegistry registry;
    private final Shutdown shutdown;
    private final boolean ownsShutdown;
    private final Storage storage;
    private final EventBus bus;
    private final CommandRouter commands;
    private final CallCosts costs;
    private final SlowTraces slowTraces;
    private final ObservationRegistry observations;
    private final Config config;
    private final TranscriptWriter transcripts;
    private final List<Adapter> extraAdapters = new ArrayList<>();
    private final List<Platform> platforms = new ArrayList<>();
    private final List<String> platformNames = new ArrayList<>();
    private final List<Adapter> platformAdapters = new ArrayList<>();
    private @Nullable MessagePipeline pipeline;
    private @Nullable ModuleHost modules;
    private volatile boolean started;
    private volatile boolean closed;
    private final java.util.concurrent.CountDownLatch closedLatch = new java.util.concurrent.CountDownLatch(1);

    private PulseBus(Builder b) throws Exception {
        this.b = b;
        this.settings = b.settings;
        this.instance = settings.instance().isEmpty() ? HostName.get() + "-" + ProcessHandle.current().pid()
                : settings.instance();
        this.registry = b.registry != null ? b.registry : new SimpleMeterRegistry();
        this.ownsShutdown = b.shutdown == null;
        this.shutdown = b.shutdown != null ? b.shutdown : new Shutdown();
        try {
            StorageSettings ss = settings.storage();
            Storage.Builder sb = Storage.builder().dataDir(ss.dataDir()).synchronous(ss.synchronous())
                    .cacheSize(ss.cacheSize()).meterRegistry(registry);
            if (!ss.jdbcUrl().isEmpty()) {
                sb.jdbcUrl(ss.jdbcUrl()).username(ss.username().isEmpty() ? null : ss.username())
                        .password(ss.password().isEmpty() ? null : ss.password().reveal());
            }
            this.storage = sb.open();
            shutdown.add("storage", left -> storage.close(Duration.ofNanos(left - reserve(left))));
            Duration slow = Duration.ofMillis(settings.bus().slowHandlerMs());
            this.costs = CallCosts.create(registry, settings.bus().costSampleEvery());
            this.slowTraces = new SlowTraces(slow);
            this.observations = SlowTraces.registry(slowTraces);
            this.bus = EventBus.builder().meterRegistry(registry).slowHandler(slow).callCosts(costs).build();
            shutdown.add("bus", bus);
            CommandRouter.Builder rb = CommandRouter.builder().meterRegistry(registry).slowCommand(slow).callCosts(costs)
                    .observationRegistry(observations)
                    .quotaStore(storage.quotas()).replyToUnknown(b.replyToUnknown);
            if (b.sharedControls != null) {
                rb.sharedControls(b.sharedControls); // the local tables stand in while the shared store is down
            }
            this.commands = rb.build();
            Consumer<ConfigChanged> onChange = b.onConfigChange;
            Config.Builder cb = Config.builder(settings.file()).optional(true).onChange(c -> {
                onChange.accept(c);
                bus.publish(c);
            });
            if (b.validator != null) {
                cb.validate(b.validator); // an edit that does not read as at start is refused
            }
            this.config = cb.build();
            shutdown.add("configuration", config); // writes pending runtime values
            // records of some 512 bytes filling an eighth of the heap (8,192 in ./pulsebus's 32 MB), so that
            // a database that stops taking them fills the buffer, not the heap
            TranscriptWriter.Builder tb = TranscriptWriter.builder(storage.transcripts())
                    .capacity(HeapShare.entries(8, 512, 1024, 65_536)).keepPerChat(settings.transcripts().keepPerChat())
                    .maxAge(Duration.ofDays(settings.transcripts().maxAgeDays())).overflowWait(b.overflowWait)
                    .spillDirectory(ss.dataDir().resolve("spill")).meterRegistry(registry);
            if (b.onOwnershipGained != null) {
                SharedSeq seq = storage.sharedSeq(); // every instance writes to the one database
                tb.seqSource(seq);
                // a chat moving here: its next records must come after those its previous holder wrote
                b.onOwnershipGained.accept(seq::renew);
            }
            this.transcripts = tb.build();
            shutdown.add("transcripts", left -> transcripts.close(Duration.ofNanos(left - reserve(left))));
        } catch (Exception | Error e) {
            closeOnFailure();
            throw e;
        }
    }

    /** A runtime to configure. */
    public static Builder builder() {
        return new Builder();
    }

    /**
     * Adds an adapter of a platform that is not plugged in through the SPI (an in-memory one, the server's HTTP
     * chat): started and stopped by the pipeline with the others. Before {@link #start} only.
     */
    public synchronized PulseBus adapter(Adapter adapter) {
        if (started) {
            throw new IllegalStateException("the bot has started: adapters are added before");
        }
        extraAdapters.add(Objects.requireNonNull(adapter, "adapter"));
        return this;
    }

    /**
     * Creates the platforms, builds the pipeline and loads the modules (from code, from the class path unless
     * turned off, then the newest jar of each module in {@code modules/}), then lets events flow. A failed
     * start closes what the bot opened and throws.
     *
     * @throws ConfigException when a platform cannot start (naming its section)
     * @throws Exception when an adapter cannot start
     */
    public synchronized PulseBus start() throws Exception {
        if (started) {
            throw new IllegalStateException("started already");
        }
        started = true;
        try {
            MessagePipeline.Builder pb = MessagePipeline.builder(bus).commands(commands).transcripts(transcripts)
                    .observationRegistry(observations)
                    .stallAfter(Duration.ofMillis(settings.bus().stallMs())).meterRegistry(registry);
            if (b.recordWhen != null) {
                pb.recordWhen(b.recordWhen);
            }
            for (Adapter a : extraAdapters) {
                pb.adapter(a);
            }
            for (PlatformSection<?> section : settings.platforms()) {
                if (!section.settings().enabled()) {
                    continue;
                }
                String name = section.provider().name();
                PlatformContext context = new Context(name, b.http.apply(section.settings().maxBodyBytes()), a -> {
                    platformAdapters.add(a);
                    pb.adapter(b.adapterWrapper.apply(a)); // started and stopped by the pipeline
                });
                try {
                    platforms.add(section.create(context));
                    platformNames.add(name);
                } catch (ConfigException | IllegalStateException | IllegalArgumentException e) {
                    throw new ConfigException("adapters." + name + ": " + e.getMessage(), e);
                } catch (Exception e) {
                    throw new ConfigException("adapters." + name + " cannot start: " + e, e);
                }
            }
            MessagePipeline p = pb.build();
            this.pipeline = p;
            // transcripts flush: within the time left, but what the storage after it needs
            shutdown.add("pipeline", left -> p.close(Duration.ofNanos(left - reserve(left))));
            ModuleHost.Builder mb = ModuleHost.builder(bus, commands).pipeline(p).kv(storage.kv()).config(config)
                    .observationRegistry(observations)
                    .routes(b.routes).migrator(storage::migrate).meterRegistry(registry)
                    .loadTimeout(Duration.ofMillis(settings.modules().loadTimeoutMs()));
            if (b.scheduleClaims != null) {
                mb.scheduleClaims(b.scheduleClaims); // a daily message goes out once, not once per instance
            }
            ModuleHost host = mb.build();
            this.modules = host;
            shutdown.addBounded("modules", host); // newest first; onUnload may still send
            b.services.forEach((type, service) -> provide(host, type, service));
            loadModules(host);
            p.start(); // events flow once the modules are loaded
            if (ownsShutdown) {
                shutdown.addBounded("adapters", p::stopAdapters); // lanes drain; their replies are recorded
            }
            return this;
        } catch (Exception | Error e) {
            closeOnFailure();
            throw e;
        }
    }

    @SuppressWarnings("unchecked")
    private static <T> void provide(ModuleHost host, Class<T> type, Object service) {
        host.provide(type, (T) service);
    }

    private void loadModules(ModuleHost host) {
        if (!b.modules.isEmpty()) {
            host.loadAll(b.modules);
        }
        if (b.classpathModules) {
            host.loadAll(Modules.onClasspath(b.moduleLoader)); // but those turned off
        }
        for (Path jar : Modules.newestJars(settings.modules().dir(), true)) { // one version of each module
            try {
                host.load(jar);
            } catch (ModuleException e) {
                LOG.error("Modules of {} are not loaded; the bot runs without them: {}", jar, e.getMessage());
            }
        }
    }

    /** A failed build or start closes what the bot opened; an owner's shutdown is the owner's to close. */
    private void closeOnFailure() {
        if (ownsShutdown) {
            closed = true;
            shutdown.closeAll(TimeUnit.MILLISECONDS.toNanos(b.shutdownTimeout.toMillis()));
            closedLatch.countDown();
        }
    }

    /**
     * What {@code time} a closing step keeps back for the steps after it: a fifth of the time left, at most 2 s
     * (the storage's pool closes quickly when nothing is stuck).
     */
    static long reserve(long nanosLeft) {
        return Math.min(nanosLeft / 5, TimeUnit.SECONDS.toNanos(2));
    }

    /** This bot's name: {@code bot.instance}, else the machine's name and the process id. */
    public String instance() {
        return instance;
    }

    public RuntimeSettings settings() {
        return settings;
    }

    public Storage storage() {
        return storage;
    }

    public EventBus bus() {
        return bus;
    }

    public CommandRouter commands() {
        return commands;
    }

    /**
     * What the modules' handlers and commands cost ({@code bus.cost_sample_every}): the table behind
     * {@code pulsebus_module_cpu_seconds_total} and the console's cost view.
     */
    public CallCosts costs() {
        return costs;
    }

    /** The last slow command calls' traces ({@code bus.slow_handler_ms}): {@code GET /api/admin/slow}. */
    public SlowTraces slowTraces() {
        return slowTraces;
    }

    /**
     * Where every command call, and its KV calls, replies and waits for answers, is observed: add a handler to
     * export them (Micrometer Tracing's {@code DefaultTracingObservationHandler} with an OTLP exporter, say;
     * docs/PROFILING.md).
     */
    public ObservationRegistry observations() {
        return observations;
    }

    /** The live configuration (module settings, edits while running). */
    public Config config() {
        return config;
    }

    public TranscriptWriter transcripts() {
        return transcripts;
    }

    public MeterRegistry meterRegistry() {
        return registry;
    }

    /** The pipeline; after {@link #start}. */
    public MessagePipeline pipeline() {
        return Objects.requireNonNull(pipeline, "not started");
    }

    /** The modules: loaded, and loading, unloading and reloading jars while it runs; after {@link #start}. */
    public ModuleHost modules() {
        return Objects.requireNonNull(modules, "not started");
    }

    /** The platforms' adapters of {@code type} ({@code TelegramAdapter.class}), as the configuration enabled them. */
    public <T> List<T> adapters(Class<T> type) {
        return platformAdapters.stream().filter(type::isInstance).map(type::cast).toList();
    }

    /** The platforms started, by their sections' names, in order. */
    public Map<String, Platform> platforms() {
        Map<String, Platform> out = new LinkedHashMap<>();
        for (int i = 0; i < platforms.size(); i++) {
            out.put(platformNames.get(i), platforms.get(i));
        }
        return java.util.Collections.unmodifiableMap(out);
    }

    /** Stops the adapters (lanes drain, their replies are recorded): for an owner that orders its own shutdown. */
    public void stopAdapters() {
        MessagePipeline p = pipeline;
        if (p != null) {
            p.stopAdapters();
        }
    }

    /** Waits until {@link #close} has finished (from another thread, a signal's hook). */
    public void awaitClose() throws InterruptedException {
        closedLatch.await();
    }

    /**
     * Shuts down in order within the builder's {@code shutdownTimeout} (idempotent): the adapters stop, the
     * modules unload, handled messages finish, transcripts and KV writes flush, storage closes. When the bot
     * was built into an owner's {@link Shutdown}, the owner closes it and this does nothing.
     */
    @Override
    public void close() {
        if (!ownsShutdown || closed) {
            return;
        }
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
        }
        try {
            shutdown.closeAll(TimeUnit.MILLISECONDS.toNanos(b.shutdownTimeout.toMillis()));
        } finally {
            closedLatch.countDown();
        }
    }

    /** What a platform may use: its adapters to the pipeline, its KV namespace, the meters, its routes. */
    private final class Context implements PlatformContext {
        private final Kv kv;
        private final HttpRoutes routes;
        private final Consumer<Adapter> register;

        Context(String name, HttpRoutes routes, Consumer<Adapter> register) {
            this.kv = storage.kv().namespace(name);
            this.routes = routes;
            this.register = register;
        }

        @Override
        public String instance() {
            return instance;
        }

        @Override
        public void adapter(Adapter adapter) {
            register.accept(adapter);
        }

        @Override
        public Kv kv() {
            return kv;
        }

        @Override
        public MeterRegistry meters() {
            return registry;
        }

        @Override
        public Clock clock() {
            return b.clock;
        }

        @Override
        public HttpRoutes http() {
            return routes;
        }

        @Override
        public Optional<InstanceMessaging> cluster() {
            return Optional.ofNullable(b.messaging);
        }
    }

    /** Configures a {@link PulseBus}. Not thread-safe. */
    public static final class Builder {
        private RuntimeSettings settings = RuntimeSettings.DEFAULTS;
        private @Nullable MeterRegistry registry;
        private @Nullable Shutdown shutdown;
        private Duration shutdownTimeout = Duration.ofSeconds(10);
        private final List<BotModule> modules = new ArrayList<>();
        private boolean classpathModules = true;
        private ClassLoader moduleLoader = PulseBus.class.getClassLoader();
        private @Nullable Consumer<ConfigSnapshot> validator;
        private Consumer<ConfigChanged> onConfigChange = c -> { };
        private IntFunction<HttpRoutes> http = maxBody -> HttpRoutes.none("this platform");
        private @Nullable SharedControls sharedControls;
        private @Nullable ScheduleClaims scheduleClaims;
        private @Nullable InstanceMessaging messaging;
        private UnaryOperator<Adapter> adapterWrapper = UnaryOperator.identity();
        private @Nullable Consumer<Runnable> onOwnershipGained;
        private Duration overflowWait = Duration.ofMillis(50);
        private @Nullable Predicate<ChatRef> recordWhen;
        private boolean replyToUnknown = true;
        private Routes routes = new Routes();
        private final Map<Class<?>, Object> services = new LinkedHashMap<>();
        private Clock clock = Clock.systemUTC();

        private Builder() {
        }

        /** The settings ({@link RuntimeSettings#load} reads them from a file); defaults when not set. */
        public Builder settings(RuntimeSettings settings) {
            this.settings = Objects.requireNonNull(settings, "settings");
            return this;
        }

        /** Where its meters go; a registry of its own when not set. */
        public Builder meterRegistry(MeterRegistry registry) {
            this.registry = registry;
            return this;
        }

        /** How long {@link #close} may take (10 s). */
        public Builder shutdownTimeout(Duration timeout) {
            this.shutdownTimeout = timeout;
            return this;
        }

        /** A module to load, written in code (before those on the class path and in {@code modules/}). */
        public Builder module(BotModule module) {
            modules.add(Objects.requireNonNull(module, "module"));
            return this;
        }

        /** Whether the modules a jar on the class path lists ({@code META-INF/services}) are loaded (true). */
        public Builder classpathModules(boolean load, ClassLoader loader) {
            this.classpathModules = load;
            this.moduleLoader = loader;
            return this;
        }

        /** Checks each edit of the configuration file while the bot runs: a check that throws refuses the edit. */
        public Builder validateEdits(Consumer<ConfigSnapshot> validator) {
            this.validator = validator;
            return this;
        }

        /** Also tells {@code listener} of each edit applied (the bus hears of it as {@link ConfigChanged}). */
        public Builder onConfigChange(Consumer<ConfigChanged> listener) {
            this.onConfigChange = listener;
            return this;
        }

        /**
         * The HTTP server's routes for a platform whose routes take bodies of up to the given bytes (0: the
         * server's limit); without a server, mounting fails naming the platform.
         */
        public Builder http(IntFunction<HttpRoutes> routes) {
            this.http = routes;
            return this;
        }

        /** Commands' cooldowns and quotas shared with other instances. */
        public Builder sharedControls(SharedControls controls) {
            this.sharedControls = controls;
            return this;
        }

        /** Scheduled jobs claimed among instances, so that each runs once. */
        public Builder scheduleClaims(ScheduleClaims claims) {
            this.scheduleClaims = claims;
            return this;
        }

        /** Messages between instances, for the platforms ({@link PlatformContext#cluster()}). */
        public Builder instances(InstanceMessaging messaging) {
            this.messaging = messaging;
            return this;
        }

        /** Wraps each platform adapter before the pipeline gets it (a cluster routes its events through a broker). */
        public Builder adapterWrapper(UnaryOperator<Adapter> wrapper) {
            this.adapterWrapper = wrapper;
            return this;
        }

        /**
         * Transcripts take their sequence from the shared database (several instances write to one), renewed
         * whenever this instance is given chats another held: {@code onGained} is handed the renewal to run then.
         */
        public Builder sharedTranscriptSequence(Consumer<Runnable> onGained) {
            this.onOwnershipGained = onGained;
            return this;
        }

        /** How long recording a message may wait for room in the transcript buffer (50 ms; 0: never waits). */
        public Builder transcriptOverflowWait(Duration wait) {
            this.overflowWait = wait;
            return this;
        }

        /** Which chats the pipeline records (a platform that records its own is left out). */
        public Builder recordWhen(Predicate<ChatRef> chats) {
            this.recordWhen = chats;
            return this;
        }

        /** Whether a command nobody registered is answered with a hint (true). */
        public Builder replyToUnknown(boolean reply) {
            this.replyToUnknown = reply;
            return this;
        }

        /** Where modules' HTTP routes are registered (the server serves them). */
        public Builder routes(Routes routes) {
            this.routes = routes;
            return this;
        }

        /** A service modules find with {@code ctx.service(type)}. */
        public <T> Builder service(Class<T> type, T service) {
            services.put(type, service);
            return this;
        }

        /** The clock platforms stamp events with. */
        public Builder clock(Clock clock) {
            this.clock = clock;
            return this;
        }

        /**
         * Closes its steps in {@code owner} (its storage, bus, configuration, transcripts, pipeline and
         * modules, in that order among the owner's own) instead of in {@link #close}; the owner also stops the
         * adapters ({@link PulseBus#stopAdapters}) where its order needs it.
         */
        public Builder shutdownIn(Shutdown owner) {
            this.shutdown = owner;
            return this;
        }

        /** Opens storage, the bus, the router, the configuration and transcripts; {@link PulseBus#start} does the rest. */
        public PulseBus build() throws Exception {
            return new PulseBus(this);
        }

        /** {@link #build()} then {@link PulseBus#start()}. */
        public PulseBus start() throws Exception {
            return build().start();
        }
    }
}
