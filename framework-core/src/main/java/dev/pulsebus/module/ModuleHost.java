package dev.pulsebus.module;

import dev.pulsebus.internal.SlowTraces;
import dev.pulsebus.bus.EventBus;
import dev.pulsebus.command.CommandRouter;
import dev.pulsebus.config.Config;
import dev.pulsebus.config.ConfigSnapshot;
import dev.pulsebus.internal.ClockTimer;
import dev.pulsebus.internal.Names;
import dev.pulsebus.internal.Require;
import dev.pulsebus.kv.KvStore;
import dev.pulsebus.pipeline.MessagePipeline;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.observation.ObservationRegistry;
import java.io.IOException;
import java.net.MalformedURLException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.ServiceLoader;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.FutureTask;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Loads, wires and unloads the modules of one bot. A module loads after its dependencies; what it
 * registers through its {@link ModuleContext} is released when it unloads, or at once when its
 * {@code onLoad} throws or runs past its {@linkplain Builder#loadTimeout time} (the rest of the bot is
 * untouched). A module from a jar gets a class loader of
 * its own, closed on unload, so {@link #reload} swaps in a new version of the jar while the bot runs and
 * the old classes can be collected. {@link ModuleLoaded} and {@link ModuleUnloaded} are published on the
 * bus. Thread-safe: loads and unloads are serialized.
 */
public final class ModuleHost implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(ModuleHost.class);
    /** What {@link Builder#loadTimeout} is when not told. */
    private static final Duration DEFAULT_LOAD_TIMEOUT = Duration.ofSeconds(10);

    final EventBus bus;
    final CommandRouter router;
    final @Nullable MessagePipeline pipeline;
    final @Nullable KvStore kv;
    final ServiceDirectory services;
    /** {@code null} until a module asks, when none was given: then an empty one. */
    private volatile @Nullable Config config;
    final Routes routes;
    final @Nullable Migrator migrator;
    /** Guards what is made on first use: the scheduler, and the configuration when none was given. */
    private final Object lazyLock = new Object();
    /** Made on first use: most bots schedule nothing. Guarded by {@link #lazyLock}. */
    private @Nullable ScheduledThreadPoolExecutor scheduler;
    private boolean schedulerClosed;
    /** Made on first use, for cron jobs. Guarded by {@link #lazyLock}. */
    private @Nullable ClockTimer cronTimer;
    private final Clock clock;
    private final Duration clockRecheck;
    /** How long a module's {@code onLoad} may run before its load fails. */
    private final Duration loadTimeout;
    final @Nullable MeterRegistry meterRegistry;
    /** Where modules' KV calls within a command's call are observed. */
    final @Nullable ObservationRegistry observations;
    final ScheduleClaims scheduleClaims;
    /** {@code null}: each module's {@code modules.<name>} section of {@link #config}. */
    private final @Nullable Function<String, Map<String, String>> settings;
    private final Map<String, Entry> loaded = new LinkedHashMap<>();

    /** What the host keeps of a loaded module. */
    private record Entry(BotModule module, ModuleScope scope, @Nullable URLClassLoader loader, @Nullable Path jar) {
    }

    /** A loaded module, as the host reports it. */
    public record LoadedModule(String name, String version, List<String> dependencies, @Nullable Path jar) {
    }

    /**
     * What a loaded module has registered: its commands (by name, as registered), the names of its
     * active subscriptions and interceptors, and its HTTP routes ({@code GET /modules/<name>/path}).
     */
    public record Owned(List<String> commands, List<String> subscriptions, List<String> routes) {
    }

    private ModuleHost(Builder b) {
        this.bus = b.bus;
        this.router = b.router;
        this.pipeline = b.pipeline;
        this.kv = b.kv;
        this.config = b.config;
        this.routes = b.routes;
        this.migrator = b.migrator;
        this.settings = b.settings;
        this.services = new ServiceDirectory(b.meterRegistry);
        this.meterRegistry = b.meterRegistry;
        this.observations = b.observations;
        this.scheduleClaims = b.scheduleClaims;
        this.clock = b.clock;
        this.clockRecheck = b.clockRecheck;
        this.loadTimeout = b.loadTimeout;
    }

    /** The timer of modules' cron jobs, on the host's clock. */
    ClockTimer cronTimer() {
        synchronized (lazyLock) {
            if (schedulerClosed) {
                throw new RejectedExecutionException("the module host is closed");
            }
            if (cronTimer == null) {
                cronTimer = new ClockTimer("pulsebus-module-cron", clock, clockRecheck);
            }
            return cronTimer;
        }
    }

    /** The timer behind {@link ModuleContext}'s scheduled tasks. */
    ScheduledThreadPoolExecutor scheduler() {
        synchronized (lazyLock) {
            if (schedulerClosed) {
                throw new RejectedExecutionException("the module host is closed");
            }
            if (scheduler == null) {
                scheduler = new ScheduledThreadPoolExecutor(1, r -> Thread.ofPlatform().daemon()
                        .name("pulsebus-module-scheduler").unstarted(r));
                scheduler.setRemoveOnCancelPolicy(true); // a cancelled task must not keep its module's classes
            }
            return scheduler;
        }
    }

    /** Each module's settings: as the builder was told, or its section of the configuration. */
    private Map<String, String> settingsOf(String name) {
        if (settings != null) {
            return settings.apply(name);
        }
        Config c = config; // none yet: no settings either
        return c == null ? Map.of() : c.snapshot().section("modules." + name);
    }

    /**
     * {@code name}'s settings as they are now: its section of the current snapshot, the same map while the
     * snapshot is the same ({@code last}: the one returned before, or null). Null when the builder was told
     * fixed settings or no configuration was given: the settings at load then stay.
     */
    @Nullable LiveSettings liveSettings(String name, @Nullable LiveSettings last) {
        Config c = config;
        if (settings != null || c == null) {
            return null;
        }
        ConfigSnapshot now = c.snapshot();
        return last != null && last.snapshot() == now ? last
                : new LiveSettings(now, now.section("modules." + name));
    }

    /** A module's section of one snapshot. */
    record LiveSettings(ConfigSnapshot snapshot, Map<String, String> values) {
    }

    /**
     * Whether {@code name} may load from the classpath or a jar: not when its settings say
     * {@code enabled = false} ({@code [modules.<name>]}). A module loaded by {@link #load(BotModule)} is
     * loaded as asked.
     */
    private boolean enabled(String name) {
        if ("false".equalsIgnoreCase(settingsOf(name).getOrDefault("enabled", "").trim())) {
            LOG.info("Module {} is turned off (modules.{}.enabled = false)", name, name);
            return false;
        }
        return true;
    }

    /** The configuration given to modules. */
    Config config() {
        Config c = config;
        if (c == null) {
            synchronized (lazyLock) {
                c = config;
                if (c == null) {
                    c = Config.empty();
                    config = c;
                }
            }
        }
        return c;
    }

    public static Builder builder(EventBus bus, CommandRouter router) {
        return new Builder(bus, router);
    }

    /**
     * Loads {@code module} (from the classpath).
     *
     * @throws ModuleException when its name is taken, a dependency is not loaded, or its {@code onLoad}
     *                         threw or ran out of time (everything it registered is released again)
     */
    public LoadedModule load(BotModule module) {
        return load(module, null, null);
    }

    /**
     * Loads the modules of {@code jar} in a class loader of their own (in dependency order), but those
     * turned off in their settings ({@code enabled = false}); returns the loaded ones.
     *
     * @throws ModuleException as {@link #load(BotModule)}, or when the jar lists no module
     */
    public List<LoadedModule> load(Path jar) {
        URLClassLoader loader = loaderFor(jar);
        List<BotModule> found = new ArrayList<>();
        java.util.Set<String> off = new java.util.HashSet<>();
        boolean listed = false;
        try {
            for (BotModule m : ServiceLoader.load(BotModule.class, loader)) {
                if (m.getClass().getClassLoader() == loader) {
                    listed = true;
                    if (enabled(m.name())) {
                        found.add(m);
                    } else {
                        off.add(m.name());
                    }
                }
            }
        } catch (java.util.ServiceConfigurationError | LinkageError e) {
            closeQuietly(loader);
            throw new ModuleException("module jar " + jar + " cannot be read: " + e.getMessage(), e);
        }
        if (!listed) {
            closeQuietly(loader);
            throw new ModuleException("module jar " + jar + " lists no BotModule in "
                    + "META-INF/services/dev.pulsebus.module.BotModule");
        }
        for (boolean dropped = !off.isEmpty(); dropped; ) { // and those that need a module turned off
            dropped = false;
            for (java.util.Iterator<BotModule> it = found.iterator(); it.hasNext(); ) {
                BotModule m = it.next();
                String needed = m.dependencies().stream().filter(off::contains).findFirst().orElse(null);
                if (needed != null) {
                    LOG.warn("Module {} is not loaded: it needs {}, which is turned off", m.name(), needed);
                    off.add(m.name());
                    it.remove();
                    dropped = true;
                }
            }
        }
        if (found.isEmpty()) { // all turned off
            closeQuietly(loader);
            return List.of();
        }
        List<LoadedModule> done = new ArrayList<>();
        try {
            for (BotModule m : Modules.inLoadOrder(found)) {
                done.add(load(m, loader, jar));
            }
        } catch (RuntimeException e) {
            for (int i = done.size() - 1; i >= 0; i--) {
                unload(done.get(i).name());
            }
            closeQuietly(loader);
            throw e;
        }
        return done;
    }

    /**
     * Loads each module in dependency order, but those turned off in their settings ({@code enabled =
     * false}); one that fails is logged and skipped (with the modules that depend on it). Returns the loaded
     * ones.
     */
    public List<LoadedModule> loadAll(List<BotModule> given) {
        List<BotModule> modules = given.stream().filter(m -> enabled(m.name())).toList();
        List<LoadedModule> done = new ArrayList<>();
        List<BotModule> order;
        try {
            order = Modules.inLoadOrder(modules);
        } catch (ModuleException e) {
            // A missing dependency or a cycle: load what can load, in the given order; the rest fail below.
            LOG.error("Modules cannot all load: {}", e.getMessage());
            order = modules;
        }
        for (BotModule m : order) {
            try {
                done.add(load(m));
            } catch (ModuleException e) {
                LOG.error("Module {} is not loaded; the bot runs without it: {}", m.name(), e.getMessage(), e.getCause());
            }
        }
        return done;
    }

    private synchronized LoadedModule load(BotModule module, @Nullable URLClassLoader loader, @Nullable Path jar) {
        String name = module.name();
        String bad = Names.problem("module name", name);
        if (bad != null) {
            throw new ModuleException(bad + " (" + module.getClass().getName() + ")");
        }
        if (loaded.containsKey(name)) {
            throw new ModuleException("module '" + name + "' is loaded already");
        }
        for (String dep : module.dependencies()) {
            if (!loaded.containsKey(dep)) {
                throw new ModuleException("module '" + name + "' needs '" + dep + "', which is not loaded");
            }
        }
        ModuleScope scope = new ModuleScope(name, this, settingsOf(name), module.getClass().getClassLoader());
        Throwable failure = onLoadWithin(module, scope);
        if (failure != null) {
            int failed = scope.release(); // and what a timed-out onLoad registers later is undone at once
            throw new ModuleException("module '" + name + "' failed to load and was rolled back"
                    + (failed > 0 ? " (" + failed + " releases failed)" : "") + ": " + failure, failure);
        }
        loaded.put(name, new Entry(module, scope, loader, jar));
        LOG.info("Module {} {} loaded{}", name, module.version(), jar == null ? "" : " from " + jar.getFileName());
        bus.publish(new ModuleLoaded(name, module.version()));
        return info(module, jar);
    }

    /**
     * Runs {@code module}'s {@code onLoad} on a thread of its own, waiting at most {@link #loadTimeout} so that
     * one that never returns cannot hold the host (whose lock this caller holds); returns what it threw, or
     * a {@link java.util.concurrent.TimeoutException} naming the setting when it ran out of time (it is then
     * interrupted, and left to its thread).
     */
    private @Nullable Throwable onLoadWithin(BotModule module, ModuleScope scope) {
        FutureTask<Void> onLoad = new FutureTask<>(() -> {
            module.onLoad(scope);
            return null;
        });
        Thread t = Thread.ofPlatform().daemon().name("pulsebus-module-load-" + module.name()).unstarted(onLoad);
        // its context class loader is the caller's, as ever: threads it starts (the host's timers) inherit it
        t.start();
        try {
            onLoad.get(loadTimeout.toNanos(), TimeUnit.NANOSECONDS);
            return null;
        } catch (ExecutionException e) {
            Throwable cause = e.getCause();
            if (cause instanceof Error error && !(cause instanceof LinkageError)) {
                throw error; // out of memory and the like: not the module's failure to report
            }
            return cause;
        } catch (TimeoutException e) {
            onLoad.cancel(true);
            return new TimeoutException("onLoad did not return within " + loadTimeout.toMillis()
                    + " ms (modules.load_timeout_ms); its thread " + t.getName() + " was interrupted");
        } catch (InterruptedException e) {
            onLoad.cancel(true);
            Thread.currentThread().interrupt();
            return e;
        }
    }

    /**
     * Unloads {@code name}: its commands and handlers running on the pipeline's lanes are interrupted, then its
     * {@code onUnload},
     * then the release of all it registered (newest first,
     * even when {@code onUnload} threw), then its blocking commands still running are interrupted, then its class
     * loader is closed.
     *
     * @throws ModuleException when it is not loaded or a loaded module depends on it
     */
    public synchronized void unload(String name) {
        Entry e = loaded.get(name);
        if (e == null) {
            throw new ModuleException("module '" + name + "' is not loaded");
        }
        List<String> dependents = loaded.values().stream().filter(o -> o.module.dependencies().contains(name))
                .map(o -> o.module.name()).toList();
        if (!dependents.isEmpty()) {
            throw new ModuleException("module '" + name + "' cannot unload: " + String.join(", ", dependents)
                    + " depend on it; unload them first");
        }
        loaded.remove(name);
        if (pipeline != null) { // a handler of it that never returns would hold its lane's chat for ever
            int interrupted = pipeline.handlerWatch().interrupt(name);
            if (interrupted > 0) {
                LOG.warn("Module {} unloads while {} of its commands or handlers run: interrupted", name, interrupted);
            }
        }
        try {
            e.module.onUnload(e.scope);
        } catch (Exception | LinkageError t) {
            LOG.warn("Module {} failed in onUnload; releasing what it registered anyway: {}", name, t.toString());
        }
        e.scope.release();
        // after the release, which ends their asks as UNLOADED: one that waits on something else, or never
        // returns, would keep a blocking slot and the module's classes for ever
        int blocking = router.interruptBlocking(name);
        if (blocking > 0) {
            LOG.warn("Module {} unloaded while {} of its blocking commands ran: interrupted", name, blocking);
        }
        if (e.loader != null && loaded.values().stream().noneMatch(o -> o.loader == e.loader)) {
            closeQuietly(e.loader);
        }
        LOG.info("Module {} unloaded", name);
        bus.publish(new ModuleUnloaded(name, e.module.version()));
    }

    /**
     * Swaps in a new version: unloads {@code name} and the other modules of its jar (newest first), then
     * loads the modules of {@code jar}. When the new version fails to load, the old jar is loaded again and
     * the failure is rethrown.
     *
     * @throws ModuleException when {@code name} is not loaded, another module depends on it, or the new
     *                         version failed (then the old one runs again)
     */
    @SuppressWarnings("ReferenceEquality") // the same entry, or the same class loader: identity is meant
    public synchronized List<LoadedModule> reload(String name, Path jar) {
        Entry e = loaded.get(name);
        if (e == null) {
            throw new ModuleException("module '" + name + "' is not loaded");
        }
        List<String> siblings = new ArrayList<>();
        for (Entry other : loaded.values()) {
            if (other == e || (e.loader != null && other.loader == e.loader)) {
                siblings.add(other.module.name());
            }
        }
        for (int i = siblings.size() - 1; i >= 0; i--) {
            unload(siblings.get(i));
        }
        try {
            return load(jar);
        } catch (RuntimeException failed) {
            if (e.jar != null) {
                try {
                    load(e.jar);
                    LOG.warn("Module {}: the new version from {} failed to load; the old one runs again: {}", name,
                            jar.getFileName(), failed.getMessage());
                } catch (RuntimeException alsoFailed) {
                    failed.addSuppressed(alsoFailed);
                }
            }
            throw failed;
        }
    }

    /**
     * Offers {@code service} to every module under {@code type}, as the host (provider {@code "host"}): what the
     * program embedding the modules gives them, such as the server's cluster events. A module provides no type
     * the host does.
     *
     * @throws ModuleException when a module or the host provides {@code type} already
     */
    public <T> void provide(Class<T> type, T service) {
        services.provide("host", type, service);
    }

    /** The loaded modules, in load order. */
    public synchronized List<LoadedModule> loaded() {
        return loaded.values().stream().map(e -> info(e.module, e.jar)).toList();
    }

    /**
     * The loaded modules' classes by name, in load order: what a profile attributes frames with (a jar module's
     * class loader, a class path module's package or class).
     */
    public synchronized Map<String, Class<? extends BotModule>> types() {
        Map<String, Class<? extends BotModule>> types = new LinkedHashMap<>();
        loaded.forEach((name, e) -> types.put(name, e.module.getClass()));
        return types;
    }

    /** What {@code name} has registered so far, or null when it is not loaded. */
    public synchronized @Nullable Owned owned(String name) {
        Entry e = loaded.get(name);
        return e == null ? null : e.scope.owned();
    }

    /** Unloads every module, newest first, then stops the scheduler. */
    @Override
    public synchronized void close() {
        List<String> names = new ArrayList<>(loaded.keySet());
        for (int i = names.size() - 1; i >= 0; i--) {
            try {
                unload(names.get(i));
            } catch (ModuleException e) {
                LOG.warn("Module {} did not unload cleanly: {}", names.get(i), e.getMessage());
            }
        }
        synchronized (lazyLock) {
            schedulerClosed = true;
            if (scheduler != null) {
                scheduler.shutdownNow();
            }
            if (cronTimer != null) {
                cronTimer.close();
            }
        }
    }

    private static LoadedModule info(BotModule m, @Nullable Path jar) {
        return new LoadedModule(m.name(), m.version(), List.copyOf(m.dependencies()), jar);
    }

    static URLClassLoader loaderFor(Path jar) {
        try {
            return new URLClassLoader("module:" + jar.getFileName(), new URL[] {jar.toUri().toURL()},
                    ModuleHost.class.getClassLoader());
        } catch (MalformedURLException e) {
            throw new ModuleException("bad module jar " + jar + ": " + e.getMessage(), e);
        }
    }

    private static void closeQuietly(URLClassLoader loader) {
        try {
            loader.close();
        } catch (IOException e) {
            LOG.debug("closing {} failed: {}", loader.getName(), e.toString());
        }
    }

    /** What the host wires modules to. */
    public static final class Builder {
        private final EventBus bus;
        private final CommandRouter router;
        private @Nullable MessagePipeline pipeline;
        private @Nullable KvStore kv;
        private @Nullable Function<String, Map<String, String>> settings;
        private @Nullable Config config;
        private Routes routes = new Routes();
        private @Nullable Migrator migrator;
        private @Nullable MeterRegistry meterRegistry;
        private @Nullable ObservationRegistry observations;
        private Clock clock = Clock.systemUTC();
        private Duration clockRecheck = Duration.ofSeconds(1);
        private Duration loadTimeout = DEFAULT_LOAD_TIMEOUT;
        private ScheduleClaims scheduleClaims = ScheduleClaims.EACH_INSTANCE;

        private Builder(EventBus bus, CommandRouter router) {
            this.bus = Objects.requireNonNull(bus, "bus");
            this.router = Objects.requireNonNull(router, "router");
        }

        /** The pipeline modules send through and add middleware to. Default none. */
        public Builder pipeline(@Nullable MessagePipeline pipeline) {
            this.pipeline = pipeline;
            return this;
        }

        /** Where {@link ModuleContext#kv()} namespaces come from. Default none. */
        public Builder kv(@Nullable KvStore kv) {
            this.kv = kv;
            return this;
        }

        /** The bot's configuration, given to modules as {@link ModuleContext#config()}. Default empty. */
        public Builder config(Config config) {
            this.config = Objects.requireNonNull(config, "config");
            return this;
        }

        /** Where module HTTP routes go (the server serves them). Default: a table nobody serves. */
        public Builder routes(Routes routes) {
            this.routes = Objects.requireNonNull(routes, "routes");
            return this;
        }

        /** What applies module migrations ({@code storage::migrate}). Default none. */
        public Builder migrator(@Nullable Migrator migrator) {
            this.migrator = migrator;
            return this;
        }

        /** Each module's settings, by module name. Default: its {@code modules.<name>} section of the config. */
        public Builder settings(Function<String, Map<String, String>> settings) {
            this.settings = Objects.requireNonNull(settings, "settings");
            return this;
        }

        /**
         * Where a module's KV calls within a command's call are observed ({@value SlowTraces#KV}): the registry
         * the command router observes calls into. Default: none.
         */
        public Builder observationRegistry(@Nullable ObservationRegistry registry) {
            this.observations = registry;
            return this;
        }

        /** Where {@code pulsebus_module_calls_total} and {@code pulsebus_schedule_runs_total} go. Default none. */
        public Builder meterRegistry(@Nullable MeterRegistry registry) {
            this.meterRegistry = registry;
            return this;
        }

        /** The clock modules' cron jobs ({@link ModuleContext#schedule}) read. Default the system's. */
        public Builder clock(Clock clock) {
            this.clock = Objects.requireNonNull(clock, "clock");
            return this;
        }

        /**
         * How often the cron timer reads the clock at least, so a clock that jumps (a test's fake clock) is
         * noticed within it; with a steady clock jobs start on time whatever this is. Default 1 s.
         */
        public Builder clockRecheck(Duration every) {
            this.clockRecheck = Require.positive(every, "clockRecheck");
            return this;
        }

        /**
         * Which instance runs each time of a cron job when several run the same modules (a cluster's shared
         * claims). Default {@link ScheduleClaims#EACH_INSTANCE}.
         */
        public Builder scheduleClaims(ScheduleClaims claims) {
            this.scheduleClaims = Objects.requireNonNull(claims, "claims");
            return this;
        }

        /**
         * How long a module's {@code onLoad} may run: past it the load fails and is rolled back (the module's
         * thread is interrupted and left to it), so one that never returns cannot hold the host. Default 10 s
         * ({@code modules.load_timeout_ms} in the server).
         */
        public Builder loadTimeout(Duration timeout) {
            this.loadTimeout = Require.positive(timeout, "loadTimeout");
            return this;
        }

        public ModuleHost build() {
            return new ModuleHost(this);
        }
    }
}
