package dev.pulsebus.server;

import dev.pulsebus.bus.EventBus;
import dev.pulsebus.cluster.Cluster;
import dev.pulsebus.cluster.ClusterEvents;
import dev.pulsebus.cluster.ClusterSettings;
import dev.pulsebus.command.CommandRouter;
import dev.pulsebus.config.Config;
import dev.pulsebus.config.ConfigException;
import dev.pulsebus.event.ChatRef;
import dev.pulsebus.internal.Shutdown;
import dev.pulsebus.module.BotModule;
import dev.pulsebus.module.ModuleException;
import dev.pulsebus.module.ModuleHost;
import dev.pulsebus.module.Modules;
import dev.pulsebus.module.Routes;
import dev.pulsebus.pipeline.Adapter;
import dev.pulsebus.pipeline.MessagePipeline;
import dev.pulsebus.pipeline.ReplyWatch;
import dev.pulsebus.runtime.PulseBus;
import dev.pulsebus.storage.Storage;
import dev.pulsebus.transcript.TranscriptWriter;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MultiGauge;
import io.micrometer.core.instrument.Tags;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.IoHandlerFactory;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.ServerChannel;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.epoll.EpollServerSocketChannel;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.handler.codec.http.HttpResponseStatus;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import dev.pulsebus.kv.Kv;
import dev.pulsebus.platform.HttpRoutes;
import dev.pulsebus.platform.InstanceMessaging;
import dev.pulsebus.platform.Platform;
import dev.pulsebus.platform.PlatformContext;
import dev.pulsebus.platform.PlatformSection;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The standalone server, assembled: storage, the bus, the command router, transcripts, the {@code http}
 * chat platform, the platforms configured ({@code [adapters.<name>]}, their providers found on the class
 * path), the modules found on the classpath and in {@code modules/}, and the Netty listener
 * (epoll where available). {@link #start} returns once it listens; {@link #close} shuts down gracefully:
 * stop accepting, release long-polls, let handled messages finish, flush transcripts and KV writes,
 * close storage.
 */
public final class PulseBusServer implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(PulseBusServer.class);
    /** How long a cluster's holder waits for an event's replies to leave before it acknowledges the event. */
    private static final Duration REPLY_WAIT = Duration.ofSeconds(10);
    static final String VERSION = BuildInfo.CURRENT.version();

    private final ServerConfig config;
    private final long startedNanos = System.nanoTime();
    private final String instance;
    private final PrometheusMeterRegistry registry;
    private final JvmMeters jvmMeters;
    private final Storage storage;
    private final EventBus bus;
    private final CommandRouter commands;
    private final TranscriptWriter transcripts;
    /** This instance's part in a cluster, when {@code cluster.enabled}. */
    private final @Nullable Cluster cluster;
    private final LongPollRooms polls;
    private final HttpChat chat;
    private final MessagePipeline pipeline;
    /** The bot this server serves: storage, bus, router, transcripts, pipeline, modules, platforms. */
    private final PulseBus runtime;
    /** The platforms it started, by their sections' names: read at every {@code /health} and scrape. */
    private final Map<String, Platform> platforms;
    private final ModuleHost modules;
    private final Config liveConfig;
    private final Routes routes = new Routes();
    private final ExecutorService work = Executors.newVirtualThreadPerTaskExecutor();
    private final EventLoopGroup boss;
    private final EventLoopGroup workers;
    private final ServerInitializer initializer;
    private final Channel listener;
    private final AtomicBoolean closed = new AtomicBoolean();
    private static final String COMPONENT_UP = "pulsebus.component.up";
    private static final String COMPONENT_UP_HELP = "1 while the /health component is UP, 0 while it is DOWN";
    /** The bots' components of /health (a platform's, {@code onebot11:<self_id>}), read at each scrape. */
    @SuppressWarnings("NullAway.Init") // set before the server listens, read only by a scrape
    private MultiGauge botsUp;
    /** Everything opened, closed newest first at shutdown and on a failed start. */
    private final Shutdown opened = new Shutdown();
    private volatile @Nullable LastHealth lastHealth;
    private final java.util.concurrent.CountDownLatch stopped = new java.util.concurrent.CountDownLatch(1);

    private PulseBusServer(ServerConfig config) throws Exception {
        this.config = config;
        ClusterSettings cs = config.cluster();
        // In a cluster the instance's name is its cluster name: cluster.instance, else bot.instance, else host:port.
        this.instance = cs.enabled() && !cs.instance().isEmpty() ? cs.instance()
                : !config.instance().isEmpty() ? config.instance()
                : cs.enabled() ? hostName() + ":" + (config.listen().port() != 0 ? Integer.toString(config.listen().port())
                : Long.toString(ProcessHandle.current().pid())) : defaultInstance();
        long shutdownNanos = TimeUnit.MILLISECONDS.toNanos(config.listen().shutdownTimeoutMs());
        try {
            // what is timed within a command's call carries its trace id as an exemplar (OpenMetrics only)
            CommandExemplars exemplars = new CommandExemplars();
            this.registry = new PrometheusMeterRegistry(EXPOSITION, new PrometheusRegistry(),
                    io.micrometer.core.instrument.Clock.SYSTEM, exemplars);
            registry.config().meterFilter(ConsoleStats.LATENCY_PERCENTILES); // before the bus and router time
            registry.config().meterFilter(SloBuckets.FILTER);
            RecentErrors errors = new RecentErrors().attach(); // from here on: module load failures included
            opened.add("recent errors", errors);
            this.jvmMeters = new JvmMeters(registry); // bound once it listens
            opened.add("meters", () -> {
                jvmMeters.close();
                registry.close();
            });
            opened.add("workers", left -> {
                work.shutdown();
                if (!work.awaitTermination(left, TimeUnit.NANOSECONDS)) {
                    work.shutdownNow();
                }
            });
            boolean epoll = Epoll.isAvailable();
            IoHandlerFactory io = epoll ? EpollIoHandler.newFactory() : NioIoHandler.newFactory();
            this.boss = new MultiThreadIoEventLoopGroup(1, io);
            this.workers = new MultiThreadIoEventLoopGroup(Runtime.getRuntime().availableProcessors(), io);
            opened.add("event loops", left -> {
                // at least half a second, even past the deadline: answers written by the steps before
                // (a say that was spilled gets its 503) go out before the connections close
                long ms = Math.max(500, TimeUnit.NANOSECONDS.toMillis(left));
                workers.shutdownGracefully(Math.min(100, ms), Math.min(5000, ms), TimeUnit.MILLISECONDS)
                        .awaitUninterruptibly(ms);
                boss.shutdownGracefully(0, Math.min(1000, ms), TimeUnit.MILLISECONDS).awaitUninterruptibly(ms);
            });

            if (cs.enabled()) {
                String name = instance;
                // Two clusters on one broker and Redis (tests): -Dpulsebus.cluster.namespace=... keeps them apart.
                String ns = System.getProperty("pulsebus.cluster.namespace", "pulsebus");
                Cluster joined;
                try {
                    joined = Cluster.join(cs.enabledAs(name), ns, ns.concat(":"));
                } catch (java.io.IOException e) {
                    throw new ConfigException(String.valueOf(e.getMessage()), e);
                }
                this.cluster = joined;
                opened.add("cluster engines", joined);
                joined.bindMeters(registry);
            } else {
                this.cluster = null;
            }
            Map<String, ClusteredAdapter> clustered = new java.util.HashMap<>();
            CountedResponses out = new CountedResponses(registry);
            Mounts mounts = new Mounts(out);
            ConfigEdits edits = new ConfigEdits();
            String configSource = String.valueOf(config.file());
            // overflowWait 0: a say runs on a Netty I/O thread and must not wait for room; a full buffer
            // drops the oldest record, whose say then gets 503 instead of 201. Records spilled at the last
            // shutdown are stored here, before the server listens.
            PulseBus.Builder rb = PulseBus.builder().settings(config.runtime().toBuilder().instance(instance).build())
                    .meterRegistry(registry).shutdownIn(opened).routes(routes).transcriptOverflowWait(Duration.ZERO)
                    .recordWhen(c -> !HttpChat.PLATFORM.equals(c.platform())) // the http platform records its own
                    .validateEdits(s -> ServerConfig.from(s, configSource, config.file())) // as at start
                    .onConfigChange(edits::changed)
                    .http(mounts::forPlatform)
                    .classpathModules(true, PulseBusServer.class.getClassLoader());
            Cluster c0 = cluster;
            if (c0 != null) {
                rb.sharedControls(c0.controls()) // the local tables stand in while Redis is down
                        .scheduleClaims(c0.scheduleClaims()) // a daily message goes out once, not once per instance
                        .instances(c0) // a bot's reverse WebSocket reaches one instance
                        .sharedTranscriptSequence(c0::onPartitionGained)
                        .adapterWrapper(a -> clustered(a, clustered))
                        .service(ClusterEvents.class, c0.events()); // ctx.service(ClusterEvents.class)
            }
            this.runtime = rb.build();
            exemplars.observe(runtime.observations());
            this.storage = runtime.storage();
            this.bus = runtime.bus();
            this.commands = runtime.commands();
            this.transcripts = runtime.transcripts();
            this.liveConfig = runtime.config();
            edits.started(liveConfig);
            this.polls = new LongPollRooms(work);
            RoomHistory rooms = new RoomHistory(transcripts);
            polls.reader(rooms);
            // Message ids are unique in the cluster and across restarts of an instance of a fixed name (ids repeated
            // after a restart would be taken for duplicates by the handling instance's dedupe).
            String ids = cluster != null ? cluster.instance() + "-" + Long.toString(System.currentTimeMillis(), 36)
                    : instance;
            this.chat = new HttpChat(transcripts, rooms, polls, Clock.systemUTC(), ids,
                    config.listen().maxPendingMessages(), cluster, work);
            runtime.adapter(chat);
            runtime.start(); // the platforms, the pipeline, the modules; then events flow
            this.pipeline = runtime.pipeline();
            this.platforms = runtime.platforms();
            this.modules = runtime.modules();
            if (cluster != null) {
                Cluster c = cluster;
                c.start(new Cluster.EventHandler() {
                    @Override
                    public void handledBefore(String kind, byte[] body) {
                        if (Cluster.ROOM_KIND.equals(kind)) {
                            chat.answerAgain(body); // the instance that took the say may not have had the answer
                        }
                    }

                    @Override
                    public void handle(String kind, byte[] body, boolean redelivered) throws Exception {
                        ClusteredAdapter platform = clustered.get(kind);
                        if (platform == null && !Cluster.ROOM_KIND.equals(kind)) {
                            LOG.warn("An event of kind {} reached this instance, which has no adapter for it: dropped", kind);
                            return;
                        }
                        // Acknowledged once its replies have left (a room's: committed), so that an instance killed
                        // after the acknowledgement has lost none; a reply still going after REPLY_WAIT is let be.
                        RuntimeException[] failed = {null};
                        var replies = ReplyWatch.run(() -> {
                            try {
                                if (platform != null) {
                                    platform.handle(body);
                                } else {
                                    chat.handle(body);
                                }
                            } catch (RuntimeException e) {
                                failed[0] = e; // after the replies it made before failing have left
                            } catch (InterruptedException e) {
                                Thread.currentThread().interrupt();
                                failed[0] = new IllegalStateException("interrupted while storing a say", e);
                            }
                        });
                        try {
                            replies.get(REPLY_WAIT.toMillis(), TimeUnit.MILLISECONDS);
                        } catch (java.util.concurrent.TimeoutException e) {
                            LOG.warn("A reply to an event of kind {} is still going after {} ms; acknowledging the event",
                                    kind, REPLY_WAIT.toMillis());
                        }
                        if (failed[0] != null) {
                            throw failed[0];
                        }
                    }
                }, (kind, body) -> {
                    if (HttpChat.ROOM_MESSAGE.equals(kind)) {
                        chat.storedElsewhere(body, c);
                        return;
                    }
                    if (HttpChat.ROOM_STORED.equals(kind)) {
                        chat.storedByHolder(body);
                    }
                }, bus);
                // first at shutdown: the partitions (and their unacknowledged events) go to the other instances
                opened.add("leave the cluster", c);
            }
            opened.addBounded("adapters", runtime::stopAdapters); // room lanes drain; their replies are recorded
            opened.add("answer waiting polls", polls::releaseAll);

            ConsoleStats stats = new ConsoleStats(registry, System::nanoTime, System::currentTimeMillis,
                    edits::pending);
            Profiler profiler = new Profiler(modules::types);
            opened.add("profiles", profiler);
            AdminApi admin = new AdminApi(config, out, work, stats, modules, runtime.costs(), profiler, runtime.slowTraces(), errors,
                    limit -> transcripts.chatIds(HttpChat.PLATFORM, ChatRef.GROUP, limit), AdminApi::benchResults);
            HttpHandler handler = new HttpHandler(config, new ChatApi(config, chat, rooms, polls, work, out), out, work,
                    config.metricsEnabled() ? registry : null, this::beforeScrape, new Probes(new LoopWatch(workers)), routes,
                    mounts, admin);
            this.initializer = new ServerInitializer(config, handler, out.timers, mounts);
            bindMeters();
            Class<? extends ServerChannel> channel = epoll ? EpollServerSocketChannel.class : NioServerSocketChannel.class;
            try {
                this.listener = new ServerBootstrap().group(boss, workers).channel(channel)
                        .option(ChannelOption.SO_BACKLOG, 1024)
                        .childOption(ChannelOption.TCP_NODELAY, true)
                        .childHandler(initializer)
                        .bind(config.listen().host(), config.listen().port()).sync().channel();
            } catch (Exception e) {
                throw new ConfigException("cannot listen on " + config.listen().host() + ":" + config.listen().port() + ": "
                        + e.getMessage(), e);
            }
            opened.add("stop accepting", left -> listener.close()
                    .awaitUninterruptibly(Math.min(TimeUnit.SECONDS.toNanos(5), left), TimeUnit.NANOSECONDS));
            jvmMeters.start();
            LOG.info("PulseBus {} listening on {} ({}, {} modules, storage {})", VERSION, url(),
                    epoll ? "epoll" : "nio", modules.loaded().size(), storage.backend());
        } catch (Exception | Error e) {
            // Not started: release what was opened, newest first (an embedding program or a test goes on).
            closed.set(true);
            opened.closeAll(shutdownNanos);
            throw e;
        }
    }

    /**
     * Starts a server as configured; returns once it listens.
     *
     * @throws ConfigException when it cannot listen; {@link dev.pulsebus.storage.StorageException} when
     *                         storage cannot open
     */
    public static PulseBusServer start(ServerConfig config) throws Exception {
        return new PulseBusServer(config);
    }

    /** The port it listens on (the chosen one when configured as 0). */
    public int port() {
        return ((InetSocketAddress) listener.localAddress()).getPort();
    }

    /** Connections open now, counted against {@code server.max_connections} (what tests wait for). */
    int openConnections() {
        return initializer.limit().open();
    }

    /**
     * Micrometer's defaults, but exemplars only where OpenMetrics 1.0 allows them (histogram buckets, counters'
     * totals): Prometheus refuses a whole scrape with one on a histogram's {@code _count}.
     */
    private static final PrometheusConfig EXPOSITION = new PrometheusConfig() {
        @Override
        public @Nullable String get(String key) {
            return null;
        }

        @Override
        public java.util.Properties prometheusProperties() {
            java.util.Properties p = new java.util.Properties();
            java.util.Properties defaults = PrometheusConfig.super.prometheusProperties();
            if (defaults != null) {
                p.putAll(defaults);
            }
            p.setProperty("io.prometheus.exporter.exemplarsOnAllMetricTypes", "false");
            return p;
        }
    };

    public URI url() {
        return URI.create("http://" + config.listen().host() + ":" + port());
    }

    public EventBus bus() {
        return bus;
    }

    public CommandRouter commands() {
        return commands;
    }

    public MessagePipeline pipeline() {
        return pipeline;
    }

    /** The platforms' adapters of {@code type} ({@code OneBotAdapter.class}), as the configuration enabled them. */
    public <T> List<T> adapters(Class<T> type) {
        return runtime.adapters(type);
    }

    public Storage storage() {
        return storage;
    }

    /** Mean time of deliveries to waiting polls so far (commit to the last answer written), in ms; NaN before any. */
    public double pollDeliveryMillis() {
        io.micrometer.core.instrument.Timer t = registry.find("pulsebus.longpoll.delivery").timer();
        return t == null || t.count() == 0 ? Double.NaN : t.mean(TimeUnit.MILLISECONDS);
    }

    /** Long-polls parked now, waiting for a message. */
    public int waitingPolls() {
        return polls.waiting();
    }

    /** The bot's modules: what is loaded, and loading, unloading and reloading jars while it runs. */
    public ModuleHost modules() {
        return modules;
    }

    /** The bot this server serves, without the listener (the same bus, storage, pipeline and modules). */
    public PulseBus runtime() {
        return runtime;
    }

    /**
     * {@code /health}: DOWN (503) when storage is down, DEGRADED when transcripts fail, a platform's bot is down
     * (each one a component, {@code onebot11:<self_id>}, {@code telegram:<bot id>}; a platform names a bounded
     * number, those down first, and counts the rest in {@code unlisted_bots}) or a handler runs past
     * {@code bus.stall_ms} (component {@code handlers}), otherwise UP; {@code warnings} names what is weakly
     * authenticated (a OneBot v11 HTTP intake without secret); why
     * storage is down ({@code error}, an exception's text that can name database hosts and users) only
     * {@code withError}, for a client the token admits. The answers are written again only when something
     * in them changed: asked many times a second, it mostly has not, and they are then the same bytes.
     */
    private static final HttpHandler.Health LIVE = probe(HttpResponseStatus.OK, "{\"status\":\"UP\"}");
    private static final HttpHandler.Health WEDGED = probe(HttpResponseStatus.SERVICE_UNAVAILABLE,
            "{\"status\":\"DOWN\",\"reason\":\"an event loop has not run its tasks for 5 s\"}");
    private static final HttpHandler.Health READY = LIVE;
    private static final HttpHandler.Health STORAGE_DOWN = probe(HttpResponseStatus.SERVICE_UNAVAILABLE,
            "{\"status\":\"DOWN\",\"reason\":\"storage is down\"}");
    private static final HttpHandler.Health STOPPING = probe(HttpResponseStatus.SERVICE_UNAVAILABLE,
            "{\"status\":\"DOWN\",\"reason\":\"shutting down\"}");

    private static HttpHandler.Health probe(HttpResponseStatus status, String json) {
        return new HttpHandler.Health(status, json.getBytes(java.nio.charset.StandardCharsets.UTF_8));
    }

    /** The health answers: /health itself, and the probes that take no component into account but their own. */
    private final class Probes implements HttpHandler.HealthCheck {
        private final LoopWatch loops;

        Probes(LoopWatch loops) {
            this.loops = loops;
        }

        @Override
        public HttpHandler.Health answer(boolean withError) {
            return health(withError);
        }

        /** Only the event loops: a database outage must not make an orchestrator restart a process that is fine. */
        @Override
        public HttpHandler.Health live() {
            return loops.wedged() == 0 ? LIVE : WEDGED;
        }

        /**
         * Storage, and not shutting down. The adapters show in /health but do not gate readiness: a reverse
         * connection (OneBot) can only come once the instance takes traffic.
         */
        @Override
        public HttpHandler.Health ready() {
            return closed.get() ? STOPPING : !storage.healthy() ? STORAGE_DOWN : READY;
        }
    }

    HttpHandler.Health health(boolean withError) {
        boolean storageUp = storage.healthy();
        boolean transcriptsUp = transcripts.healthy();
        boolean httpUp = !closed.get();
        long uptime = (System.nanoTime() - startedNanos) / 1_000_000_000L;
        long received = pipeline.eventsReceived(); // every platform's, not only the HTTP chat's
        long handled = pipeline.eventsHandled();
        String error = storageUp ? null : storage.lastError();
        long platformState = 0;
        for (Platform p : platforms.values()) {
            platformState = platformState * 31 + p.healthState();
        }
        int stalled = pipeline.handlerWatch().stalled();
        platformState = platformState * 31 + stalled;
        Cluster c = cluster;
        if (c != null) {
            platformState = platformState * 31 + (c.brokerUp() ? 1 : 0) + (c.redisUp() ? 2 : 0) + 4L * c.partitionsHeld();
        }
        LastHealth last = lastHealth;
        if (last != null && last.same(storageUp, transcriptsUp, httpUp, uptime, received, handled, error, platformState)) {
            return withError ? last.explained : last.states;
        }
        Map<String, Boolean> bots = bots();
        Map<String, Integer> unlisted = new java.util.TreeMap<>(); // the bots past each adapter's listed ones
        platforms.forEach((name, p) -> {
            if (p.unlistedBots() > 0) {
                unlisted.put(name, p.unlistedBots());
            }
        });
        boolean botsUp = !bots.containsValue(false); // an adapter lists the bots that are down first
        bots.put("handlers", stalled == 0); // DOWN while a handler runs past bus.stall_ms
        List<String> warnings = new ArrayList<>();
        for (Platform p : platforms.values()) {
            warnings.addAll(p.warnings());
        }
        Map<String, Object> clusterHealth = c == null ? null : c.health();
        boolean clusterUp = clusterHealth == null || "UP".equals(clusterHealth.get("status"));
        String status = !storageUp ? "DOWN" : !transcriptsUp || !botsUp || !clusterUp || stalled > 0 ? "DEGRADED" : "UP";
        HttpResponseStatus code = storageUp ? HttpResponseStatus.OK : HttpResponseStatus.SERVICE_UNAVAILABLE;
        HttpHandler.Health states = new HttpHandler.Health(code, Responses.health(status, instance, VERSION, uptime,
                received, handled, storageUp, transcriptsUp, httpUp, bots, unlisted, clusterHealth, warnings, null));
        HttpHandler.Health explained = error == null ? states : new HttpHandler.Health(code, Responses.health(status,
                instance, VERSION, uptime, received, handled, storageUp, transcriptsUp, httpUp, bots, unlisted,
                clusterHealth, warnings, error));
        lastHealth = new LastHealth(storageUp, transcriptsUp, httpUp, uptime, received, handled, error, platformState,
                states, explained);
        return withError ? explained : states;
    }

    /** The last {@code /health} answers (states only, and with the error) and what they were written from. */
    private record LastHealth(boolean storageUp, boolean transcriptsUp, boolean httpUp, long uptime, long received,
                              long handled, @Nullable String error, long platforms, HttpHandler.Health states,
                              HttpHandler.Health explained) {
        boolean same(boolean storageUp, boolean transcriptsUp, boolean httpUp, long uptime, long received, long handled,
                     @Nullable String error, long platforms) {
            return storageUp == this.storageUp && transcriptsUp == this.transcriptsUp && httpUp == this.httpUp
                    && uptime == this.uptime && received == this.received && handled == this.handled
                    && platforms == this.platforms
                    && Objects.equals(error, this.error);
        }
    }

    /** Waits for the JVM meters (bound once the server listens) and reads the bots' states into their gauges. */
    private void beforeScrape() {
        jvmMeters.await();
        List<MultiGauge.Row<?>> rows = new ArrayList<>();
        bots().forEach((bot, up) -> rows.add(MultiGauge.Row.of(Tags.of("component", bot), up ? 1 : 0)));
        botsUp.register(rows, true);
    }

    /** The platforms' bots, each up or not. */
    private Map<String, Boolean> bots() {
        Map<String, Boolean> bots = new java.util.LinkedHashMap<>();
        for (Platform p : platforms.values()) {
            bots.putAll(p.health());
        }
        return bots;
    }

    private void bindMeters() {
        botsUp = MultiGauge.builder(COMPONENT_UP).description(COMPONENT_UP_HELP).register(registry);
        Gauge.builder(COMPONENT_UP, storage, s -> s.healthy() ? 1 : 0).tag("component", "storage")
                .description(COMPONENT_UP_HELP).register(registry);
        Gauge.builder(COMPONENT_UP, transcripts, t -> t.healthy() ? 1 : 0).tag("component", "transcripts")
                .description(COMPONENT_UP_HELP).register(registry);
        Gauge.builder(COMPONENT_UP, closed, c -> c.get() ? 0 : 1).tag("component", "http")
                .description(COMPONENT_UP_HELP).register(registry);
        Gauge.builder(COMPONENT_UP, pipeline.handlerWatch(), w -> w.stalled() == 0 ? 1 : 0).tag("component", "handlers")
                .description(COMPONENT_UP_HELP).register(registry);
        Gauge.builder("pulsebus.build.info", () -> 1)
                .tags("version", BuildInfo.CURRENT.version(), "commit", BuildInfo.CURRENT.commit(),
                        "jdk", Runtime.version().toString())
                .description("1, labelled with this build's version and commit and the JDK it runs on")
                .register(registry);
        Gauge.builder("pulsebus.longpoll.waiters", polls, LongPollRooms::waiting)
                .description("Long-polls parked, waiting for a message").register(registry);
        polls.deliveryTimer(io.micrometer.core.instrument.Timer.builder("pulsebus.longpoll.delivery")
                .description("From a message's commit to its answer written to the last waiting poll")
                .register(registry));
        Gauge.builder("pulsebus.http.connections", initializer.limit(), ServerInitializer.ConnectionLimit::open)
                .description("Open HTTP connections").register(registry);
        FunctionCounter.builder("pulsebus.http.messages.received", chat.received, a -> a.sum())
                .description("Messages said over HTTP and stored").register(registry);
        FunctionCounter.builder("pulsebus.http.messages.refused", chat.refused, a -> a.sum())
                .description("Says refused because the room's lane was full").register(registry);
        FunctionCounter.builder("pulsebus.http.messages.repeated", chat.repeated, a -> a.sum())
                .description("Says sent again with the id of one stored already: answered as it, not stored again")
                .register(registry);
        FunctionCounter.builder("pulsebus.http.connections.refused", initializer.limit().refused, a -> a.sum())
                .description("Connections past max_connections or max_connections_per_client").register(registry);
        FunctionCounter.builder("pulsebus.http.connections.closed", initializer.writes.closed, a -> a.sum())
                .tag("reason", "slow_reader")
                .description("Connections closed because their queued answers passed server.max_pending_write_bytes")
                .register(registry);
        FunctionCounter.builder("pulsebus.http.connections.paused", initializer.writes.paused, a -> a.sum())
                .description("Times reading a connection was paused because it did not read its answers")
                .register(registry);
        FunctionCounter.builder("pulsebus.http.connections.slowed", initializer.writes.slowed, a -> a.sum())
                .description("Times reading a connection was slowed because what was asked of its peer waits for "
                        + "the peer's answers (a OneBot implementation that answers slowly)")
                .register(registry);
    }

    /**
     * Shuts down gracefully (idempotent), closing what the start opened newest first: stop accepting
     * connections, answer parked polls (204), let the messages already stored be handled and their replies
     * recorded, unload the modules, flush transcripts and KV writes, close storage, then the event loops.
     * Returns within about {@code server.shutdown_timeout_ms} whatever the database does: transcripts it
     * did not take are spilled to {@code data/spill/} and stored at the next start; KV writes it did not
     * take fail their futures.
     */
    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) {
            boolean interrupted = false;
            while (true) { // a second caller (a second signal) waits for the first
                try {
                    stopped.await();
                    break;
                } catch (InterruptedException e) {
                    interrupted = true;
                }
            }
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
            return;
        }
        try {
            LOG.info("PulseBus shutting down");
            opened.closeAll(TimeUnit.MILLISECONDS.toNanos(config.listen().shutdownTimeoutMs()));
            LOG.info("PulseBus stopped");
        } finally {
            stopped.countDown();
        }
    }

    /**
     * {@code adapter} as the pipeline gets it: in a cluster, wrapped so that its events go through the broker
     * ({@link ClusteredAdapter}, noted in {@code byKind}); else as it is.
     */
    private Adapter clustered(Adapter adapter, Map<String, ClusteredAdapter> byKind) {
        Cluster c = cluster;
        if (c == null) {
            return adapter;
        }
        ClusteredAdapter wrapped = new ClusteredAdapter(adapter, c,
                io.micrometer.core.instrument.Timer.builder("pulsebus.cluster.reply.record")
                        .tag("platform", adapter.platform())
                        .description("From the platform's answer to a reply to the reply's record in Redis (within "
                                + "it, a redelivery would send the reply again)")
                        .register(registry));
        byKind.put(wrapped.kind(), wrapped);
        for (String path : List.of("broker", "here")) {
            io.micrometer.core.instrument.FunctionCounter.builder("pulsebus.cluster.platform.events", wrapped,
                    a -> (path.equals("broker") ? a.handedOver : a.handledHere).sum())
                    .tag("platform", adapter.platform()).tag("path", path)
                    .description("Platform events this instance received: handed to the broker, or handled here "
                            + "because the broker did not confirm them in time")
                    .register(registry);
        }
        io.micrometer.core.instrument.FunctionCounter.builder("pulsebus.cluster.replies.not.resent", wrapped,
                        a -> a.notResent.sum())
                .tag("platform", adapter.platform())
                .description("Replies of redelivered events found sent by the instance that handled them before, "
                        + "not sent again")
                .register(registry);
        return wrapped;
    }

    private static String defaultInstance() {
        return hostName() + "-" + ProcessHandle.current().pid();
    }

    /** The machine's name ({@link dev.pulsebus.internal.HostName}). */
    static String hostName() {
        return dev.pulsebus.internal.HostName.get();
    }
}
