package dev.pulsebus.module;

import dev.pulsebus.bus.EventBus;
import dev.pulsebus.command.CommandRouter;
import dev.pulsebus.config.Config;
import dev.pulsebus.kv.Kv;
import dev.pulsebus.pipeline.MessagePipeline;
import dev.pulsebus.pipeline.Middleware;
import java.time.Duration;
import java.time.ZoneId;
import java.util.Map;
import java.util.concurrent.ScheduledFuture;

/**
 * What a module is given on load. Everything registered through it belongs to the module and is released
 * when the module unloads (or fails to load), in reverse order of registration, even when
 * {@link BotModule#onUnload} throws: subscriptions made on {@link #bus()}, commands registered on
 * {@link #commands()}, middleware, provided services, scheduled tasks, the KV handle, and whatever is
 * passed to {@link #onRelease}.
 */
public interface ModuleContext {

    /** The module's name. */
    String name();

    /** The bot's bus; subscriptions made through this view are the module's. Publishing is shared. */
    EventBus bus();

    /** The bot's commands; commands registered through this view are the module's. */
    CommandRouter commands();

    /** Sends messages: {@code pipeline().message(bot).to(chat).text("...").send()}. */
    MessagePipeline pipeline();

    /** Adds a middleware to the pipeline (higher priority first), removed when the module unloads. */
    void middleware(int priority, Middleware middleware);

    /** The module's own KV namespace (named after the module); refuses calls once the module is unloaded. */
    Kv kv();

    /**
     * The module's table of the configuration ({@code [modules.<name>]}) as it is now, as flat text values:
     * an edit of the file is seen by the next call (read it where it is used, not once in
     * {@link BotModule#onLoad}). The same map while the configuration is unchanged; no allocation then.
     */
    Map<String, String> settings();

    /**
     * The bot's live configuration: reads are field reads of the current snapshot; writes
     * ({@code config().set("modules.<name>.key", v)}) are seen at once and saved to the runtime file.
     */
    Config config();

    /**
     * Offers {@code service} to other modules under {@code type} (an interface on the bot's classpath).
     * One provider per type at a time; withdrawn when this module unloads.
     *
     * @throws ModuleException when another module provides {@code type} already
     */
    <T> void provide(Class<T> type, T service);

    /**
     * A handle on the service of {@code type}, whoever provides it now or later: {@link Service#get()} is
     * a volatile read and a counted, plain interface call after it.
     */
    <T> Service<T> service(Class<T> type);

    /** Runs {@code task} once after {@code delay} on a virtual thread; cancelled when the module unloads. */
    ScheduledFuture<?> after(Duration delay, Runnable task);

    /** Runs {@code task} every {@code period} on a virtual thread; cancelled when the module unloads. */
    ScheduledFuture<?> every(Duration period, Runnable task);

    /**
     * Runs {@code job} at the times of cron expression {@code cron} in {@code zone}: five fields (minute hour
     * day-of-month month day-of-week, {@code "0 9 * * *"} is every day at 09:00) or an alias ({@code @daily},
     * {@code @hourly}, {@code @weekly}, {@code @monthly}, {@code @yearly}). Each run is on a virtual thread,
     * one at a time (a time that comes while the run before still goes is skipped and counted); times are
     * read from the bot's clock; daylight-saving changes are handled as cron-utils defines (see
     * {@code docs/CONVERSATIONS.md}). Cancelled when the module unloads. A time missed while the bot was down
     * is not replayed unless the job asks: {@link CronJob#catchUp()}.
     *
     * @throws IllegalArgumentException when the expression is not one, saying why
     */
    CronJob schedule(String cron, ZoneId zone, Runnable job);

    /**
     * Serves {@code route} at {@code /modules/<name><path>} for {@code method} (the standalone server; a bot
     * without one keeps the route unused). Removed when the module unloads.
     */
    void route(String method, String path, HttpRoute route);

    /**
     * Applies the module's own Flyway migrations from classpath folder {@code location} (found through the
     * module's class loader), recorded in the module's own history table; returns how many ran.
     *
     * @throws ModuleException when the bot has no storage
     */
    int migrate(String location);

    /** Closes {@code resource} when the module unloads (in reverse order with everything else). */
    void onRelease(AutoCloseable resource);
}
