package dev.pulsebus.command;

import dev.pulsebus.internal.FailureLog;
import dev.pulsebus.internal.SlowCalls;
import java.util.List;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Predicate;
import java.util.regex.Pattern;
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

    Entry(String path, Command c, String usage, Control[] controls, String keyword, List<Entry> subcommands,
          NameTable<Entry> subTable, SlowCalls.Site slow) {
        this.path = path;
        this.name = c.name;
        this.aliases = List.copyOf(c.aliases);
        this.usage = usage;
        this.help = c.help;
        this.group = c.group;
        this.hidden = c.hidden;
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
        this.failures = new FailureLog(LoggerFactory.getLogger(CommandRouter.class), "Command '" + path + "'");
    }

    @SuppressWarnings("EnumOrdinal") // an array indexed by outcome: no map lookup per call
    void count(Outcome outcome) {
        outcomes[outcome.ordinal()].increment();
    }
}
