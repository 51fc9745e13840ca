package dev.pulsebus.command;

import dev.pulsebus.internal.Require;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.function.Predicate;
import java.util.regex.Pattern;

/**
 * A command, described fluently and handed to {@link CommandRouter#register}:
 *
 * <pre>{@code
 * Command.named("weather").alias("w").usage("/weather <city>").help("Today's weather")
 *         .cooldown(Duration.ofSeconds(10), Scope.USER)
 *         .rateLimit(5, Duration.ofMinutes(1), Scope.CHAT)
 *         .handler(call -> call.reply("Sunny in " + call.arg(0)));
 * }</pre>
 *
 * <p>The router copies what it needs at registration; changing the description afterwards changes
 * nothing. Not thread-safe.
 */
public final class Command {

    final String name;
    final List<String> aliases = new ArrayList<>();
    String usage;
    String help = "";
    String group = "general";
    boolean hidden;
    boolean blocking;
    CommandHandler handler;
    Predicate<CommandSource> permission;
    Duration cooldown;
    Scope cooldownScope;
    int rateLimit;
    Duration rateWindow;
    Scope rateScope;
    int quota;
    QuotaPeriod quotaPeriod;
    Scope quotaScope;
    Pattern pattern;
    String keyword;
    final List<Command> subcommands = new ArrayList<>();

    private Command(String name) {
        this.name = checkWord(name, "name");
    }

    /** A command called {@code name} (one word, no whitespace, without the prefix). */
    public static Command named(String name) {
        return new Command(name);
    }

    /** Another name for the command; several allowed. */
    public Command alias(String alias) {
        aliases.add(checkWord(alias, "alias"));
        return this;
    }

    /** The usage line shown by {@code /help} and with argument errors. Default: the prefix and name. */
    public Command usage(String usage) {
        this.usage = Objects.requireNonNull(usage, "usage");
        return this;
    }

    /** One line on what the command does, shown by {@code /help}. */
    public Command help(String help) {
        this.help = Objects.requireNonNull(help, "help");
        return this;
    }

    /** The heading {@code /help} lists the command under. Default {@code general}. */
    public Command group(String group) {
        this.group = Objects.requireNonNull(group, "group");
        return this;
    }

    /** Works as usual but is not listed by {@code /help}. */
    public Command hidden() {
        this.hidden = true;
        return this;
    }

    /** Who may call it; refused callers get a polite answer (outcome {@code denied}). Several must all pass. */
    public Command permission(Predicate<CommandSource> permission) {
        Objects.requireNonNull(permission, "permission");
        this.permission = this.permission == null ? permission : this.permission.and(permission);
        return this;
    }

    /** One call per {@code window} per scope key. */
    public Command cooldown(Duration window, Scope scope) {
        this.cooldown = Require.positive(window, "cooldown");
        this.cooldownScope = Objects.requireNonNull(scope, "scope");
        return this;
    }

    /** At most {@code calls} per sliding {@code window} per scope key. */
    public Command rateLimit(int calls, Duration window, Scope scope) {
        if (calls < 1) {
            throw new IllegalArgumentException("rate limit must allow at least 1 call, was " + calls);
        }
        this.rateLimit = calls;
        this.rateWindow = Require.positive(window, "rate limit window");
        this.rateScope = Objects.requireNonNull(scope, "scope");
        return this;
    }

    /** At most {@code calls} per calendar day or week per scope key. */
    public Command quota(int calls, QuotaPeriod period, Scope scope) {
        if (calls < 1) {
            throw new IllegalArgumentException("quota must allow at least 1 call, was " + calls);
        }
        this.quota = calls;
        this.quotaPeriod = Objects.requireNonNull(period, "period");
        this.quotaScope = Objects.requireNonNull(scope, "scope");
        return this;
    }

    /**
     * Also runs, without a prefix, when the whole message matches {@code regex} (compiled here, once);
     * the arguments are then the groups.
     */
    public Command pattern(String regex) {
        this.pattern = Pattern.compile(regex);
        return this;
    }

    /** Also runs, without a prefix, when the message contains {@code keyword}. */
    public Command keyword(String keyword) {
        if (keyword == null || keyword.isBlank()) {
            throw new IllegalArgumentException("keyword must not be blank");
        }
        this.keyword = keyword;
        return this;
    }

    /** A sub-command: {@code /kv get key} runs {@code get} of {@code kv}. */
    public Command sub(Command subcommand) {
        subcommands.add(Objects.requireNonNull(subcommand, "subcommand"));
        return this;
    }

    /**
     * Runs the handler on a virtual thread of its own, so it may block: wait on I/O, or hold a dialog
     * ({@link CommandCall#askText}, {@link CommandCall#askInt}, {@link CommandCall#await}). Permission and
     * controls are checked first, on the routing thread; the call's outcome is counted when the handler
     * ends. At most {@link CommandRouter.Builder#maxBlockingCalls} run at once; beyond, a call is answered
     * "too busy" (outcome {@code busy}).
     */
    public Command blocking() {
        this.blocking = true;
        return this;
    }

    /** What the command does. A command with sub-commands may have none: it then answers with its usage. */
    public Command handler(CommandHandler handler) {
        this.handler = Objects.requireNonNull(handler, "handler");
        return this;
    }

    public String name() {
        return name;
    }

    private static String checkWord(String word, String what) {
        if (!Arguments.isOneWord(word)) {
            throw new IllegalArgumentException("command " + what + " must be one word, was '" + word + "'");
        }
        return word;
    }
}
