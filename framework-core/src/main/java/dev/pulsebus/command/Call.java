package dev.pulsebus.command;

import java.util.List;

/** A {@link CommandCall}: indexes into the message text; words are split on first access. */
final class Call implements CommandCall {

    private final CommandSource source;
    private final Entry entry;
    private final String text;
    private final int labelFrom;
    private final int labelTo;
    private final int argsFrom;
    private final MessageCatalog catalog;
    private List<String> args;
    private Messages messages;

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

    /** A pattern command: the arguments are given (the groups, or the words). */
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
            args = List.copyOf(Arguments.split(text, argsFrom, messages()));
        }
        return args;
    }

    @Override
    public int argCount() {
        return args().size();
    }

    @Override
    public String arg(int index) {
        List<String> a = args();
        if (index < 0 || index >= a.size()) {
            throw new CommandArgumentException(messages().format("arg.missing", "n", index + 1));
        }
        return a.get(index);
    }

    @Override
    public String arg(int index, String fallback) {
        List<String> a = args();
        return index >= 0 && index < a.size() ? a.get(index) : fallback;
    }

    @Override
    public long argLong(int index) {
        String v = arg(index);
        try {
            return Long.parseLong(v);
        } catch (NumberFormatException e) {
            throw notANumber(index, v);
        }
    }

    @Override
    public int argInt(int index) {
        String v = arg(index);
        try {
            return Integer.parseInt(v);
        } catch (NumberFormatException e) {
            throw notANumber(index, v);
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
    public String toString() {
        return "CommandCall[" + entry.path + ", user " + source.userId() + ", chat " + source.chatId() + "]";
    }
}
