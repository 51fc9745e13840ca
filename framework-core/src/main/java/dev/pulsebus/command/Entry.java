package dev.pulsebus.command;

import dev.pulsebus.event.AskException;
import dev.pulsebus.event.MessageEvent;
import dev.pulsebus.internal.CallCosts;
import dev.pulsebus.internal.FailureLog;
import dev.pulsebus.internal.SlowCalls;
import io.micrometer.observation.ObservationRegistry;
import dev.pulsebus.internal.OwnedFutures;
import java.util.List;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Predicate;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;
import org.slf4j.LoggerFactory;

/** A registered command, compiled: what the router needs per call, resolved once. Immutable. */
final class Entry {

    final String path;
    final String name;
    final List<String> aliases;
    final String usage;
    final String help;
    final String group;
    final boolean hidden;
    final boolean blocking;
    final CommandHandler handler;
    final Predicate<CommandSource> permission;
    final Control[] controls;
    final Pattern pattern;
    /** Folded when the router is case-insensitive. */
    final String keyword;
    final List<Entry> subcommands;
    /** {@code null} without sub-commands. */
    final NameTable<Entry> subTable;
    /** Calls by outcome, indexed by {@link Outcome#ordinal()}. */
    final LongAdder[] outcomes;
    final FailureLog failures;
    /** Where its runs' times go to be judged slow or not. */
    final SlowCalls.Site slow;
    /** Where its calls are measured; null with costs off. */
    final CallCosts.@Nullable Site cost;
    /** Where its calls and their waits for answers are observed; null: nowhere. */
    final @Nullable ObservationRegistry observations;
    /**
     * Calls so far, for sampling which are timed. Plain and racy on purpose: a lost increment under
     * concurrent calls only moves which call is sampled.
     */
    int calls;
    /** Pending asks made by this command's calls. */
    private final OwnedFutures<MessageEvent> asks;

    Entry(String path, Command c, String usage, Control[] controls, String keyword, List<Entry> subcommands,
          NameTable<Entry> subTable, SlowCalls.Site slow, CallCosts.@Nullable Site cost,
          @Nullable ObservationRegistry observations) {
        this.path = path;
        this.name = c.name;
        this.aliases = List.copyOf(c.aliases);
        this.usage = usage;
        this.help = c.help;
        this.group = c.group;
        this.hidden = c.hidden;
        this.blocking = c.blocking;
        this.handler = c.handler;
        this.permission = c.permission;
        this.controls = controls;
        this.pattern = c.pattern;
        this.keyword = keyword;
        this.subcommands = List.copyOf(subcommands);
        this.subTable = subTable;
        this.outcomes = new LongAdder[Outcome.values().length];
        for (int i = 0; i < outcomes.length; i++) {
            outcomes[i] = new LongAdder();
        }
        this.slow = slow;
        this.cost = cost;
        this.observations = observations;
        this.asks = new OwnedFutures<>(() -> new AskException(AskException.Reason.UNLOADED,
                "command '" + path + "' was unregistered"));
        this.failures = new FailureLog(LoggerFactory.getLogger(CommandRouter.class), "Command '" + path + "'");
    }

    /** Keeps {@code ask} until it ends, so that {@link #endAsks} can fail it; returns it. */
    CompletionStage<MessageEvent> own(CompletionStage<MessageEvent> ask) {
        return asks.own(ask.toCompletableFuture());
    }

    /** Fails every pending ask of this command and its sub-commands ({@link AskException.Reason#UNLOADED}). */
    void endAsks() {
        asks.close();
        for (Entry sub : subcommands) {
            sub.endAsks();
        }
    }

    @SuppressWarnings("EnumOrdinal") // an array indexed by outcome: no map lookup per call
    void count(Outcome outcome) {
        outcomes[outcome.ordinal()].increment();
    }
}
