package dev.pulsebus.command;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The built-in {@code help}: without arguments, the visible commands by group with their usage and
 * help line; with a command name (with or without its prefix), that command's usage, help, aliases and
 * sub-commands. Answers in the caller's language.
 */
final class HelpCommand implements CommandHandler {

    private final DefaultCommandRouter router;
    private final String prefix;
    private final boolean fold;
    private final MessageCatalog catalog;

    HelpCommand(DefaultCommandRouter router, String prefix, boolean fold, MessageCatalog catalog) {
        this.router = router;
        this.prefix = prefix;
        this.fold = fold;
        this.catalog = catalog;
    }

    @Override
    public void handle(CommandCall call) {
        Messages m = catalog.forLocale(call.source().locale());
        List<Entry> all = router.commands();
        if (call.argCount() == 0) {
            call.reply(list(all, m));
            return;
        }
        String wanted = call.arg(0).startsWith(prefix) ? call.arg(0).substring(prefix.length()) : call.arg(0);
        for (Entry e : all) {
            if (named(e, wanted)) {
                call.reply(describe(e, m));
                return;
            }
        }
        call.reply(m.format("help.unknown", "command", prefix + wanted));
    }

    /** An entry's help line; this command's own is in the caller's language. */
    private String help(Entry e, Messages m) {
        return e.handler == this ? m.format("help.usage") : e.help;
    }

    private boolean named(Entry e, String wanted) {
        if (same(e.name, wanted)) {
            return true;
        }
        return e.aliases.stream().anyMatch(a -> same(a, wanted));
    }

    private boolean same(String a, String b) {
        return fold ? NameTable.fold(a).equals(NameTable.fold(b)) : a.equals(b);
    }

    private String list(List<Entry> all, Messages m) {
        Map<String, StringBuilder> groups = new LinkedHashMap<>();
        for (Entry e : all) {
            if (e.hidden) {
                continue;
            }
            StringBuilder g = groups.computeIfAbsent(e.group, k -> new StringBuilder());
            g.append("\n  ").append(e.usage);
            String help = help(e, m);
            if (!help.isEmpty()) {
                g.append(" - ").append(help);
            }
        }
        StringBuilder sb = new StringBuilder(m.format("help.header"));
        groups.forEach((group, lines) -> sb.append("\n[").append(group).append("]").append(lines));
        sb.append('\n').append(m.format("help.footer", "help", prefix + "help"));
        return sb.toString();
    }

    private String describe(Entry e, Messages m) {
        StringBuilder sb = new StringBuilder(e.usage);
        String help = help(e, m);
        if (!help.isEmpty()) {
            sb.append('\n').append(help);
        }
        if (!e.aliases.isEmpty()) {
            sb.append('\n').append(m.format("help.aliases")).append(": ")
                    .append(String.join(", ", e.aliases.stream().map(a -> prefix + a).toList()));
        }
        if (!e.subcommands.isEmpty()) {
            sb.append('\n').append(m.format("help.subcommands")).append(':');
            for (Entry sub : e.subcommands) {
                if (!sub.hidden) {
                    sb.append("\n  ").append(sub.usage);
                    if (!sub.help.isEmpty()) {
                        sb.append(" - ").append(sub.help);
                    }
                }
            }
        }
        return sb.toString();
    }
}
