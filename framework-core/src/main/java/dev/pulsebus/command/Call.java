package dev.pulsebus.command;

import dev.pulsebus.internal.SlowTraces;
import io.micrometer.observation.Observation;
import dev.pulsebus.event.Ask;
import dev.pulsebus.event.AskException;
import dev.pulsebus.event.MessageEvent;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;

/** A {@link CommandCall}: indexes into the message text; words are split on first access. */
final class Call implements CommandCall {

    private final CommandSource source;
    private final Entry entry;
    private final String text;
    private final int labelFrom;
    private final int labelTo;
    private final int argsFrom;
    private final MessageCatalog catalog;
    /** Word boundaries from {@link Arguments#scan}; {@code null} until first needed. */
    private int[] bounds;
    /** For a pattern command: the given arguments; otherwise made on {@link #args()}. */
    private List<String> args;
    private Messages messages;
    /**
     * The time the current thread's command spent in {@link #await} waiting for answers (a thread-local, not
     * a field: every call would carry it, and only a blocking command, on a virtual thread of its own, waits).
     */
    private static final ThreadLocal<long[]> WAITED = ThreadLocal.withInitial(() -> new long[1]);

    /** A prefix command: label at {@code text[labelFrom, labelTo)}, arguments from {@code argsFrom}. */
    Call(CommandSource source, Entry entry, String text, int labelFrom, int labelTo, int argsFrom,
         MessageCatalog catalog) {
        this.source = source;
        this.entry = entry;
        this.text = text;
        this.labelFrom = labelFrom;
        this.labelTo = labelTo;
        this.argsFrom = argsFrom;
        this.catalog = catalog;
    }

    /** A pattern command: the arguments are given (the groups). */
    Call(CommandSource source, Entry entry, String text, List<String> args, MessageCatalog catalog) {
        this(source, entry, text, 0, 0, 0, catalog);
        this.args = List.copyOf(args);
    }

    Messages messages() {
        if (messages == null) {
            messages = catalog.forLocale(source.locale());
        }
        return messages;
    }

    private int[] bounds() {
        if (bounds == null) {
            bounds = Arguments.scan(text, argsFrom, messages());
        }
        return bounds;
    }

    @Override
    public CommandSource source() {
        return source;
    }

    @Override
    public String command() {
        return entry.path;
    }

    @Override
    public String label() {
        return labelTo > labelFrom ? text.substring(labelFrom, labelTo) : entry.name;
    }

    @Override
    public List<String> args() {
        if (args == null) {
            int[] b = bounds();
            String[] words = new String[b.length / 2];
            for (int i = 0; i < words.length; i++) {
                words[i] = Arguments.word(text, b[2 * i], b[2 * i + 1]);
            }
            args = List.of(words);
        }
        return args;
    }

    @Override
    public int argCount() {
        return args != null ? args.size() : bounds().length / 2;
    }

    @Override
    public String arg(int index) {
        check(index);
        return args != null ? args.get(index) : Arguments.word(text, bounds[2 * index], bounds[2 * index + 1]);
    }

    @Override
    public String arg(int index, String fallback) {
        return index >= 0 && index < argCount() ? arg(index) : fallback;
    }

    private void check(int index) {
        if (index < 0 || index >= argCount()) {
            throw new CommandArgumentException(messages().format("arg.missing", "n", index + 1));
        }
    }

    /** Whether argument {@code index} can be parsed where it stands in the text (a bare word). */
    private boolean inPlace(int index) {
        check(index);
        return args == null && Arguments.plain(text, bounds[2 * index], bounds[2 * index + 1]);
    }

    @Override
    public long argLong(int index) {
        try {
            return inPlace(index) ? Long.parseLong(text, bounds[2 * index], bounds[2 * index + 1], 10)
                    : Long.parseLong(arg(index));
        } catch (NumberFormatException e) {
            throw notANumber(index, arg(index));
        }
    }

    @Override
    public int argInt(int index) {
        try {
            return inPlace(index) ? Integer.parseInt(text, bounds[2 * index], bounds[2 * index + 1], 10)
                    : Integer.parseInt(arg(index));
        } catch (NumberFormatException e) {
            throw notANumber(index, arg(index));
        }
    }

    @Override
    public double argDouble(int index) {
        String v = arg(index);
        try {
            double d = Double.parseDouble(v);
            if (Double.isNaN(d) || Double.isInfinite(d)) {
                throw notANumber(index, v);
            }
            return d;
        } catch (NumberFormatException e) {
            throw notANumber(index, v);
        }
    }

    private CommandArgumentException notANumber(int index, String value) {
        return new CommandArgumentException(messages().format("arg.number", "n", index + 1, "value", value));
    }

    @Override
    public String rest() {
        return argsFrom >= text.length() ? "" : text.substring(Arguments.skipSpaces(text, argsFrom));
    }

    @Override
    public CompletionStage<MessageEvent> ask(Ask ask) {
        return entry.own(source.ask(ask));
    }

    @Override
    public MessageEvent await(CompletionStage<MessageEvent> ask) {
        if (!entry.blocking) {
            throw new IllegalStateException("command '" + entry.path + "' waits for an answer on the thread that must "
                    + "deliver it: register it with Command.blocking() so it runs on a virtual thread of its own");
        }
        long from = System.nanoTime();
        Observation waiting = SlowTraces.child(entry.observations, SlowTraces.ASK, "waiting for an answer")
                .start();
        try {
            return ask.toCompletableFuture().get();
        } catch (ExecutionException e) {
            if (e.getCause() instanceof AskException ae) {
                throw ae;
            }
            throw new IllegalStateException("the ask failed: " + e.getCause(), e.getCause());
        } catch (CancellationException e) {
            throw new AskException(AskException.Reason.CANCELLED, "the ask was cancelled");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            ask.toCompletableFuture().cancel(false);
            throw new AskException(AskException.Reason.CANCELLED, "interrupted while waiting for an answer");
        } finally {
            WAITED.get()[0] += System.nanoTime() - from;
            waiting.stop();
        }
    }

    /**
     * The time the current thread's command spent in {@link #await} since the last take, reset to 0: waiting
     * for the user, which is not the command's slowness (left out of its duration and its slow-call check).
     */
    static long takeWaitedNanos() {
        long[] waited = WAITED.get();
        long n = waited[0];
        waited[0] = 0;
        return n;
    }

    @Override
    public int askInt(Ask ask) {
        Ask next = ask;
        for (int answers = 1; ; answers++) {
            String text = askText(next);
            try {
                return Integer.parseInt(text);
            } catch (NumberFormatException e) {
                if (answers >= ask.attempts()) {
                    throw new AskException(AskException.Reason.INVALID, "no number in " + answers + " answers");
                }
                next = ask.prompt(messages().format("ask.number", "value", text, "prompt", ask.prompt()));
            }
        }
    }

    @Override
    public String toString() {
        return "CommandCall[" + entry.path + ", user " + source.userId() + ", chat " + source.chatId() + "]";
    }
}
