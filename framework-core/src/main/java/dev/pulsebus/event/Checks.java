package dev.pulsebus.event;

import java.time.Instant;
import java.util.Map;
import java.util.Objects;

/** The null checks every event record's constructor shares. */
final class Checks {

    private Checks() {
    }

    static void event(String id, Instant time, Self self) {
        Objects.requireNonNull(id, "id");
        Objects.requireNonNull(time, "time");
        Objects.requireNonNull(self, "self");
    }

    static void message(String id, Instant time, Self self, String messageId, Message message, String userId) {
        event(id, time, self);
        Objects.requireNonNull(messageId, "messageId");
        Objects.requireNonNull(message, "message");
        id("userId", userId);
    }

    /** {@code value}, a user, chat or bot id: not null, at most {@link Event#MAX_ID_LENGTH} characters. */
    static String id(String what, String value) {
        Objects.requireNonNull(value, what);
        if (value.length() > Event.MAX_ID_LENGTH) {
            throw new IllegalArgumentException(what + " is " + value.length() + " characters long, more than "
                    + Event.MAX_ID_LENGTH);
        }
        return value;
    }

    static String subType(String subType) {
        return subType == null ? "" : subType;
    }

    /** A message's platform fields beyond the record's own: immutable, empty when {@code null}. */
    static Map<String, Object> extra(Map<String, Object> extra) {
        return extra == null ? Map.of() : fields(extra);
    }

    /**
     * Platform fields as the record keeps them: a {@link FieldMap} as it is (immutable already), or one to be
     * built at its first read ({@link FieldMap#deferred}), else a copy.
     */
    static Map<String, Object> fields(Map<String, Object> fields) {
        return fields instanceof FieldMap || fields instanceof DeferredFieldMap ? fields : Map.copyOf(fields);
    }

    static ReplyChannel channel(ReplyChannel channel) {
        return channel == null ? ReplyChannel.UNBOUND : channel;
    }
}
