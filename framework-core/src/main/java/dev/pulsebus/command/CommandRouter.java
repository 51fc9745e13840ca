package dev.pulsebus.command;

import dev.pulsebus.internal.Require;
import dev.pulsebus.internal.CallCosts;
import dev.pulsebus.internal.SlowTraces;
import io.micrometer.observation.ObservationRegistry;
import dev.pulsebus.internal.SlowCalls;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Clock;
import java.time.Duration;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * Turns a message such as {@code /weather tokyo} into a call of the right command, or a polite refusal.
 *
 * <h2>Matching</h2>
 * Everything is compiled when commands are registered. A message that does not start with a prefix is
 * rejected on its first character (after leading spaces), with no allocation; a prefixed message costs
 * one lookup of its first word in an open-addressing table read in place, also without allocation when
 * no command has that name. Then sub-commands ({@code /kv get key}) are looked up the same way. Commands
 * with a {@link Command#pattern regex} or {@link Command#keyword keyword} are tried on messages that no
 * prefixed command took; their expressions are compiled once, at registration.
 *
 * <h2>A call</h2>
 * Permission first (refused: {@link Outcome#DENIED}), then the cooldown, rate limit and quota (refused:
 * {@link Outcome#COOLDOWN}, {@link Outcome#RATE_LIMITED}, {@link Outcome#QUOTA}; a call refused by one
 * control is not counted by the others), then the handler, on the calling thread. An argument error
 * ({@link Outcome#BAD_ARGS}) gives the call back to the controls: a typo does not cost a cooldown. Every
 * refusal is an answer to the user in their language (English and Chinese built in), once per block.
 *
 * <h2>State</h2>
 * Each control of each command keeps its own table of at most {@link Builder#tableCapacity} keys
 * (default 4096); when full, the least recently used key is evicted and counted. Time comes from the
 * {@link Builder#clock clock}.
 *
 * <p>Thread-safe: routing takes no lock; registering does, and publishes a new compiled snapshot.
 */
public interface CommandRouter {

    static Builder builder() {
        return new Builder();
    }

    /**
     * Adds a command (with its sub-commands).
     *
     * @throws IllegalArgumentException if its name or an alias is taken, or it has neither a handler nor
     *     sub-commands
     */
    Registration register(Command command);

    /**
     * Adds a command as {@link #register(Command)} does, owned by {@code module}: the module named in its
     * slow-call warning and counted in {@code pulsebus_handler_slow_total{module}}.
     */
    default Registration register(String module, Command command) {
        return register(command);
    }

    /**
     * Interrupts the {@linkplain Command#blocking() blocking} commands of {@code module} running now, each on a
     * virtual thread of its own (the module is unloading: one that never returns would keep its classes and a
     * slot of {@code maxBlockingCalls} for ever); returns how many. A command waiting for an answer
     * ({@code askText}, {@code await}) ends with {@code CANCELLED}; one that ignores interrupts runs on.
     */
    default int interruptBlocking(String module) {
        return 0;
    }

    /** Routes one message: runs the command it names, or says why not. Answers go through the source. */
    Outcome route(CommandSource source);

    /**
     * Whether {@link #route} answers a message that names no command ({@code replyToUnknown}): the pipeline
     * then takes an {@link Outcome#UNKNOWN} message as handled and does not publish it, so it gets one answer.
     */
    default boolean answersUnknown() {
        return false;
    }

    /**
     * The router's answer {@code key} in {@code locale} (the bundle {@code dev/pulsebus/command/messages} and
     * what {@link Builder#messages} added), placeholders filled from {@code namesAndValues} (name, value, ...);
     * the key itself when there is no such answer.
     */
    default String text(Locale locale, String key, Object... namesAndValues) {
        return key;
    }

    /** A registered command; {@link #unregister()} removes it and its meters (idempotent), and so does {@link #close()}. */
    interface Registration extends AutoCloseable {
        void unregister();

        /** The same as {@link #unregister()}. */
        @Override
        default void close() {
            unregister();
        }
    }

    /** Settings of a {@link CommandRouter}. Not thread-safe; build once. */
    final class Builder {
        List<String> prefixes = List.of("/");
        boolean requireMention;
        boolean caseInsensitive;
        boolean spaceAfterPrefix;
        Clock clock = Clock.system(ZoneId.systemDefault()); // calendar quotas roll over at local midnight
        int tableCapacity = 4096;
        MeterRegistry meterRegistry;
        QuotaStore quotaStore = QuotaStore.none();
        @Nullable SharedControls sharedControls;
        final Map<String, Map<String, String>> messages = new HashMap<>();
        boolean helpCommand = true;
        boolean replyToUnknown;
        Duration slowCommand = SlowCalls.DEFAULT_THRESHOLD;
        int latencySampling = 16;
        CallCosts callCosts = CallCosts.off();
        @Nullable ObservationRegistry observations;
        int maxBlockingCalls = 10_000;

        Builder() {
        }

        /** The prefixes a command starts with, e.g. {@code "/", "!", "。"}. Default {@code "/"}. */
        public Builder prefixes(String... prefixes) {
            this.prefixes = List.of(prefixes);
            return this;
        }

        /** Commands count only in messages that mention the bot. Default off. */
        public Builder requireMention(boolean require) {
            this.requireMention = require;
            return this;
        }

        /** {@code /Weather} finds {@code weather}. Default off. */
        public Builder caseInsensitive(boolean caseInsensitive) {
            this.caseInsensitive = caseInsensitive;
            return this;
        }

        /** {@code / weather} finds {@code weather}. Default off. */
        public Builder spaceAfterPrefix(boolean allowed) {
            this.spaceAfterPrefix = allowed;
            return this;
        }

        /** The time source of cooldowns, rate limits and quotas (its zone decides quota days). */
        public Builder clock(Clock clock) {
            this.clock = Objects.requireNonNull(clock, "clock");
            return this;
        }

        /** The most keys each control table of each command keeps. Default 4096. */
        public Builder tableCapacity(int capacity) {
            this.tableCapacity = Require.atLeast(capacity, 1, "tableCapacity");
            return this;
        }

        /** Where {@code pulsebus.commands.*} meters go. */
        public Builder meterRegistry(MeterRegistry registry) {
            this.meterRegistry = Objects.requireNonNull(registry, "registry");
            return this;
        }

        /**
         * A command's runs are timed ({@code pulsebus_command_duration_seconds{outcome}}) and judged slow on one
         * call in {@code n} of each command (a power of two; 1 times every call), so the others read no clock.
         * Default 16. A {@linkplain Command#blocking() blocking} command's handler is timed on every run, on
         * its virtual thread. {@code pulsebus_commands_calls_total} counts every call.
         */
        public Builder latencySampling(int n) {
            this.latencySampling = Require.powerOfTwo(n, "latencySampling");
            return this;
        }

        /**
         * A command run (controls and handler) this long or longer is slow: logged at WARN with its module and
         * name (the first time, then at most once a minute per command) and counted in
         * {@code pulsebus_handler_slow_total{module}}. Judged on the timed runs ({@link #latencySampling}).
         * Default 1 s; zero turns it off.
         */
        public Builder slowCommand(Duration threshold) {
            this.slowCommand = Require.notNegative(threshold, "slowCommand");
            return this;
        }

        /**
         * Where commands' costs are measured (CPU time and bytes allocated on one call in
         * {@link CallCosts#sampleEvery()} or fewer); the runtime passes the one table it shares with the bus.
         * Default: none.
         */
        public Builder callCosts(CallCosts costs) {
            this.callCosts = Objects.requireNonNull(costs, "costs");
            return this;
        }

        /**
         * Where each command call is observed ({@value SlowTraces#COMMAND}; its waits for answers as
         * {@value SlowTraces#ASK}): the registry that keeps slow calls' traces, and any handler a user adds to
         * it (an exporter of traces). Default: none.
         */
        public Builder observationRegistry(ObservationRegistry registry) {
            this.observations = Objects.requireNonNull(registry, "registry");
            return this;
        }

        /** Where quota counts persist. Default: nowhere (see {@link QuotaStore#none()}). */
        public Builder quotaStore(QuotaStore store) {
            this.quotaStore = Objects.requireNonNull(store, "store");
            return this;
        }

        /**
         * Decides cooldowns, rate limits and quotas in {@code shared} (several instances of one bot), this
         * router's own tables standing in while it cannot answer. Default: none, the tables alone.
         */
        public Builder sharedControls(SharedControls shared) {
            this.sharedControls = Objects.requireNonNull(shared, "shared");
            return this;
        }

        /**
         * Adds or replaces answers for a language (keys as in {@code dev/pulsebus/command/messages.properties}),
         * for example {@code messages(Locale.JAPANESE, Map.of("denied", "..."))}.
         */
        public Builder messages(Locale language, Map<String, String> texts) {
            messages.computeIfAbsent(language.getLanguage(), k -> new HashMap<>()).putAll(texts);
            return this;
        }

        /** Whether the built-in {@code help} command is registered. Default on. */
        public Builder helpCommand(boolean enabled) {
            this.helpCommand = enabled;
            return this;
        }

        /** Whether an unknown command is answered ("Unknown command /x. Try /help."). Default off. */
        public Builder replyToUnknown(boolean reply) {
            this.replyToUnknown = reply;
            return this;
        }

        /** How many {@linkplain Command#blocking() blocking} calls may run at once. Default 10,000. */
        public Builder maxBlockingCalls(int max) {
            this.maxBlockingCalls = Require.atLeast(max, 1, "maxBlockingCalls");
            return this;
        }

        public CommandRouter build() {
            return new DefaultCommandRouter(this, new ArrayList<>(prefixes));
        }
    }
}
