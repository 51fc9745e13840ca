package dev.pulsebus.command;

import java.util.EnumSet;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.function.Predicate;
import java.util.regex.Pattern;

/** Ready-made permission checks for {@link Command#permission}; combine them with {@code and}/{@code or}. */
public final class Permissions {

    /** A platform's name as adapters give it: {@code onebot11}, {@code telegram}, {@code http}. */
    private static final Pattern PLATFORM = Pattern.compile("[a-z0-9][a-z0-9_.-]*");

    private Permissions() {
    }

    /**
     * Only these users, each named with its platform, {@code "<platform>:<user id>"}: {@code "onebot11:10001"},
     * {@code "telegram:10001"}, {@code "http:ann"}. A user id is only unique on its platform (QQ's and
     * Telegram's are both numbers, and an HTTP chat user names herself), so a source admits only when its
     * {@link CommandSource#platform()} and {@link CommandSource#userId()} are both listed.
     *
     * @throws IllegalArgumentException for an id that names no platform, saying how to write it
     */
    public static Predicate<CommandSource> users(Set<String> platformUserIds) {
        Map<String, Set<String>> byPlatform = new HashMap<>();
        for (String qualified : platformUserIds) {
            int colon = Objects.requireNonNull(qualified, "user").indexOf(':');
            String platform = colon < 0 ? "" : qualified.substring(0, colon);
            if (!PLATFORM.matcher(platform).matches() || colon == qualified.length() - 1) {
                throw new IllegalArgumentException("Permissions.users: \"" + qualified + "\" does not name its "
                        + "platform; a user id is only unique on its platform, so write \"<platform>:<user id>\": "
                        + "\"onebot11:" + qualified + "\", \"telegram:" + qualified + "\" or \"http:" + qualified
                        + "\" (or Permissions.users(\"onebot11\", Set.of(\"" + qualified + "\")))");
            }
            byPlatform.computeIfAbsent(platform, p -> new HashSet<>()).add(qualified.substring(colon + 1));
        }
        return new Users(copy(byPlatform));
    }

    /**
     * Only these users of {@code platform} ({@code onebot11}, {@code telegram}, {@code http}, ...): the typed
     * form of {@link #users(Set)}.
     *
     * @throws IllegalArgumentException when {@code platform} is not a platform's name
     */
    public static Predicate<CommandSource> users(String platform, Set<String> userIds) {
        if (!PLATFORM.matcher(Objects.requireNonNull(platform, "platform")).matches()) {
            throw new IllegalArgumentException("Permissions.users: \"" + platform + "\" is not a platform's name "
                    + "(onebot11, onebot12, telegram, http, ...)");
        }
        return new Users(Map.of(platform, Set.copyOf(userIds)));
    }

    /** Only senders with one of these roles in the chat (for example group owners and admins). */
    public static Predicate<CommandSource> roles(SenderRole first, SenderRole... more) {
        Set<SenderRole> roles = EnumSet.of(first, more);
        return source -> roles.contains(source.senderRole());
    }

    private static Map<String, Set<String>> copy(Map<String, Set<String>> byPlatform) {
        Map<String, Set<String>> out = new HashMap<>();
        byPlatform.forEach((p, ids) -> out.put(p, Set.copyOf(ids)));
        return Map.copyOf(out);
    }

    /** The users admitted, by platform: two lookups per check, nothing allocated. */
    private record Users(Map<String, Set<String>> byPlatform) implements Predicate<CommandSource> {
        @Override
        public boolean test(CommandSource source) {
            Set<String> ids = byPlatform.get(source.platform());
            return ids != null && ids.contains(source.userId());
        }
    }
}
