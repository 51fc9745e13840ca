package dev.pulsebus.command;

/** Who shares a control's budget: each user, each chat (group, channel or private chat), or everyone. */
public enum Scope {
    USER,
    CHAT,
    GLOBAL;

    /** The table key of {@code source} in this scope. Never allocates. */
    String keyOf(CommandSource source) {
        return switch (this) {
            case USER -> source.userId();
            case CHAT -> source.chatId();
            case GLOBAL -> "";
        };
    }
}
