package dev.pulsebus.module;

import dev.pulsebus.bus.EventBus;
import dev.pulsebus.bus.Subscription;
import dev.pulsebus.command.CommandRouter;
import dev.pulsebus.config.Config;
import dev.pulsebus.internal.FailureLog;
import dev.pulsebus.kv.Kv;
import dev.pulsebus.pipeline.MessagePipeline;
import dev.pulsebus.pipeline.Middleware;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One loaded module's context and everything it owns, as a stack of releases: {@link #release()} runs
 * them newest first, each in its own try, so one that throws does not keep the others.
 */
final class ModuleScope implements ModuleContext {

    private static final Logger LOG = LoggerFactory.getLogger(ModuleScope.class);

    private final String name;
    private final ClassLoader loader;
    private final ModuleHost host;
    private final OwnedBus bus;
    private final OwnedRouter commands;
    private final Map<String, String> settings;
    private final Deque<AutoCloseable> releases = new ArrayDeque<>();
    private final FailureLog taskFailures;
    private @Nullable OwnedKv kv;
    private volatile boolean released;
    /** What it registered, for {@link ModuleHost#owned}: commands by name, subscriptions, routes. */
    private final List<String> commandNames = new CopyOnWriteArrayList<>();
    private final List<Subscription> subscriptions = new CopyOnWriteArrayList<>();
    private final List<String> routeKeys = new CopyOnWriteArrayList<>();

    ModuleScope(String name, ModuleHost host, Map<String, String> settings, ClassLoader loader) {
        this.name = name;
        this.loader = loader;
        this.host = host;
        this.settings = Map.copyOf(settings);
        this.bus = new OwnedBus(host.bus, this);
        this.commands = new OwnedRouter(host.router, this);
        this.taskFailures = new FailureLog(LOG, "A scheduled task of module '" + name + "'");
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public EventBus bus() {
        return bus;
    }

    @Override
    public CommandRouter commands() {
        return commands;
    }

    @Override
    public MessagePipeline pipeline() {
        if (host.pipeline == null) {
            throw new ModuleException("module '" + name + "': this bot has no message pipeline");
        }
        return host.pipeline;
    }

    @Override
    public void middleware(int priority, Middleware middleware) {
        ensureOpen();
        MessagePipeline.Registration r = pipeline().addMiddleware(priority, middleware);
        ownOrUndo(r::remove);
    }

    @Override
    public synchronized Kv kv() {
        ensureOpen();
        if (kv == null) {
            if (host.kv == null) {
                throw new ModuleException("module '" + name + "': this bot has no KV store (no storage configured)");
            }
            OwnedKv k = new OwnedKv(name, host.kv.namespace(name));
            ownOrUndo(k::release);
            kv = k;
        }
        return kv;
    }

    @Override
    public Map<String, String> settings() {
        return settings;
    }

    @Override
    public void route(String method, String path, HttpRoute route) {
        ensureOpen();
        Runnable remove = host.routes.add(name, method, path, route);
        ownOrUndo(remove::run);
        routeKeys.add(method.toUpperCase(Locale.ROOT) + " /modules/" + name + path);
    }

    @Override
    public int migrate(String location) {
        ensureOpen();
        if (host.migrator == null) {
            throw new ModuleException("module '" + name + "': this bot has no storage to migrate");
        }
        return host.migrator.migrate(name, loader, location);
    }

    @Override
    public Config config() {
        return host.config();
    }

    @Override
    public <T> void provide(Class<T> type, T service) {
        ensureOpen();
        Runnable withdraw = host.services.provide(name, Objects.requireNonNull(type, "type"),
                Objects.requireNonNull(service, "service"));
        ownOrUndo(withdraw::run);
    }

    @Override
    public <T> Service<T> service(Class<T> type) {
        return host.services.handle(name, Objects.requireNonNull(type, "type"));
    }

    @Override
    public ScheduledFuture<?> after(Duration delay, Runnable task) {
        return schedule(delay, null, task);
    }

    @Override
    public ScheduledFuture<?> every(Duration period, Runnable task) {
        if (period.isNegative() || period.isZero()) {
            throw new IllegalArgumentException("period must be positive, was " + period);
        }
        return schedule(period, period, task);
    }

    private ScheduledFuture<?> schedule(Duration delay, @Nullable Duration period, Runnable task) {
        ensureOpen();
        Objects.requireNonNull(task, "task");
        Runnable onVirtualThread = () -> Thread.ofVirtual().name("pulsebus-module-" + name).start(() -> {
            try {
                task.run();
            } catch (Throwable t) {
                taskFailures.failed(t, "running");
            }
        });
        ScheduledFuture<?> f = period == null
                ? host.scheduler().schedule(onVirtualThread, delay.toNanos(), TimeUnit.NANOSECONDS)
                : host.scheduler().scheduleAtFixedRate(onVirtualThread, delay.toNanos(), period.toNanos(), TimeUnit.NANOSECONDS);
        ownOrUndo(() -> f.cancel(false));
        return f;
    }

    @Override
    public void onRelease(AutoCloseable resource) {
        Objects.requireNonNull(resource, "resource");
        synchronized (releases) {
            if (released) {
                throw new ModuleException("module '" + name + "' is unloaded: nothing more can be registered");
            }
            releases.push(resource);
        }
    }

    // Subscriptions and commands, what nearly every module makes, are released by small classes rather
    // than method references, each of which a fresh JVM links at about half a millisecond.

    Subscription own(Subscription s) {
        ownOrUndo(s);
        subscriptions.add(s);
        return s;
    }

    CommandRouter.Registration own(String command, CommandRouter.Registration r) {
        ownOrUndo(r);
        commandNames.add(command);
        return r;
    }

    /** What it has registered so far: its commands, its active subscriptions' names, its routes. */
    ModuleHost.Owned owned() {
        return new ModuleHost.Owned(List.copyOf(commandNames),
                subscriptions.stream().filter(Subscription::isActive).map(Subscription::name).toList(),
                List.copyOf(routeKeys));
    }

    /**
     * Records {@code undo} as a release; when the module unloaded between its open check and now (a timer
     * of the module registering as it goes), undoes the registration at once instead of leaking it.
     */
    void ownOrUndo(AutoCloseable undo) {
        try {
            onRelease(undo);
        } catch (ModuleException unloaded) {
            try {
                undo.close();
            } catch (Exception e) {
                unloaded.addSuppressed(e);
            }
            throw unloaded;
        }
    }

    void ensureOpen() {
        if (released) {
            throw new ModuleException("module '" + name + "' is unloaded: nothing more can be registered");
        }
    }

    /** Releases everything, newest first; returns how many releases failed (each is logged). */
    int release() {
        int failed = 0;
        while (true) {
            AutoCloseable r;
            synchronized (releases) {
                released = true;
                r = releases.poll();
            }
            if (r == null) {
                return failed;
            }
            try {
                r.close();
            } catch (Exception | LinkageError e) {
                failed++;
                LOG.warn("Module {}: releasing a resource failed: {}", name, e.toString());
            }
        }
    }
}
