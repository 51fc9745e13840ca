package dev.pulsebus.module;

import dev.pulsebus.bus.EventBus;
import dev.pulsebus.bus.Subscription;
import dev.pulsebus.command.CommandRouter;
import dev.pulsebus.config.Config;
import dev.pulsebus.event.Ask;
import dev.pulsebus.event.AskException;
import dev.pulsebus.event.Message;
import dev.pulsebus.event.MessageEvent;
import dev.pulsebus.event.ReplyChannel;
import dev.pulsebus.internal.FailureLog;
import dev.pulsebus.internal.OwnedFutures;
import dev.pulsebus.kv.Kv;
import dev.pulsebus.pipeline.MessagePipeline;
import dev.pulsebus.pipeline.Middleware;
import dev.pulsebus.pipeline.OutboundMessage;
import java.time.Duration;
import java.time.ZoneId;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
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
    private final Map<String, String> settings; // at load: kept when the host has no live configuration
    private volatile ModuleHost.@Nullable LiveSettings live; // the section of the last snapshot read
    private final Deque<AutoCloseable> releases = new ArrayDeque<>();
    private final FailureLog taskFailures;
    private @Nullable OwnedKv kv;
    private volatile @Nullable ModuleReplies replies;
    private volatile boolean released;
    /** What it registered, for {@link ModuleHost#owned}: commands by name, subscriptions, routes. */
    private final List<String> commandNames = new CopyOnWriteArrayList<>();
    private final List<Subscription> subscriptions = new CopyOnWriteArrayList<>();
    private final List<String> routeKeys = new CopyOnWriteArrayList<>();
    /** How many cron jobs it scheduled, by module, expression and zone. */
    private final Map<String, Integer> sameSchedules = new ConcurrentHashMap<>();

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
            OwnedKv k = new OwnedKv(name, host.kv.namespace(name), host.observations);
            ownOrUndo(k::release);
            kv = k;
        }
        return kv;
    }

    @Override
    @SuppressWarnings("ReferenceEquality") // the same object when the snapshot is the same: nothing to store
    public Map<String, String> settings() {
        ModuleHost.LiveSettings last = live;
        ModuleHost.LiveSettings now = host.liveSettings(name, last);
        if (now == null) {
            return settings;
        }
        if (now != last) {
            live = now;
        }
        return now.values();
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

    // ------------------------------------------------------------------ asks made from the module's handlers

    /**
     * Whether subscriptions to {@code type} get message events rebound to the module's reply channel, so an
     * {@code event.ask} from its handler is the module's (failed when it unloads): when the bot has a
     * pipeline and {@code type} can be a message event.
     */
    boolean asksThroughModule(Class<?> type) {
        return host.pipeline != null && (type.isAssignableFrom(MessageEvent.class)
                || MessageEvent.class.isAssignableFrom(type));
    }

    /** {@code event}, a message event bound to the module's reply channel; other events as they are. */
    @SuppressWarnings("unchecked") // withReplyChannel returns the same record class, so still a T
    <T> T rebind(T event) {
        return event instanceof MessageEvent m ? (T) m.withReplyChannel(replies()) : event;
    }

    private ReplyChannel replies() {
        ModuleReplies r = replies;
        if (r == null) {
            synchronized (this) {
                r = replies;
                if (r == null) {
                    r = new ModuleReplies(pipeline(), new OwnedFutures<>(() -> new AskException(
                            AskException.Reason.UNLOADED, "module '" + name + "' unloaded")));
                    ownOrUndo(r.asks::close);
                    replies = r;
                }
            }
        }
        return r;
    }

    /** Replies as the pipeline's own channel does; asks are kept, to be failed when the module unloads. */
    private record ModuleReplies(MessagePipeline pipeline, OwnedFutures<MessageEvent> asks) implements ReplyChannel {
        @Override
        public CompletionStage<String> reply(MessageEvent to, Message message) {
            return pipeline.send(new OutboundMessage(to.self(), to.chat(), message, to.messageId()));
        }

        @Override
        public CompletionStage<MessageEvent> ask(MessageEvent to, Ask ask) {
            return asks.own(pipeline.ask(to, ask));
        }
    }

    @Override
    public CronJob schedule(String cron, ZoneId zone, Runnable job) {
        ensureOpen();
        Cron parsed = Cron.parse(Objects.requireNonNull(cron, "cron"), Objects.requireNonNull(zone, "zone"));
        String id = name + "/" + parsed.expression() + "/" + zone.getId();
        int nth = sameSchedules.merge(id, 1, Integer::sum); // the n-th alike is the same job on every instance
        CronRun run = new CronRun(name, nth == 1 ? id : id + "#" + nth, host.scheduleClaims, parsed,
                Objects.requireNonNull(job, "job"), host.cronTimer(), this::kv, host.meterRegistry);
        ownOrUndo(run::cancel);
        return run.start();
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
