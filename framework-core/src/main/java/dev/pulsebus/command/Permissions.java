package dev.pulsebus.command;

import java.util.EnumSet;
import java.util.Set;
import java.util.function.Predicate;

/** Ready-made permission checks for {@link Command#permission}; combine them with {@code and}/{@code or}. */
public final class Permissions {

    private Permissions() {
    }

    /** Only these user ids (for example the admins listed in the configuration). */
    public static Predicate<CommandSource> users(Set<String> userIds) {
        Set<String> ids = Set.copyOf(userIds);
        return source -> ids.contains(source.userId());
    }

    /** Only senders with one of these roles in the chat (for example group owners and admins). */
    public static Predicate<CommandSource> roles(SenderRole first, SenderRole... more) {
        Set<SenderRole> roles = EnumSet.of(first, more);
        return source -> roles.contains(source.senderRole());
    }
}
