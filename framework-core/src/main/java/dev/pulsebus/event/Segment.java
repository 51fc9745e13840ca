package dev.pulsebus.event;

import java.util.Map;
import java.util.Objects;

/**
 * One piece of a {@link Message}, after OneBot 12's message segments: text, a mention, a mention of
 * everyone, an image, a reply to another message, or any other segment type kept as its type and data.
 * Immutable.
 */
public sealed interface Segment {

    /** The OneBot segment type: {@code text}, {@code mention}, {@code mention_all}, {@code image}, ... */
    String type();

    /** How the segment reads in plain text. */
    String plainText();

    record Text(String text) implements Segment {
        public Text {
            Objects.requireNonNull(text, "text");
        }

        @Override
        public String type() {
            return "text";
        }

        @Override
        public String plainText() {
            return text;
        }
    }

    record Mention(String userId) implements Segment {
        public Mention {
            Objects.requireNonNull(userId, "userId");
        }

        @Override
        public String type() {
            return "mention";
        }

        @Override
        public String plainText() {
            return "@" + userId;
        }
    }

    record MentionAll() implements Segment {
        @Override
        public String type() {
            return "mention_all";
        }

        @Override
        public String plainText() {
            return "@all";
        }
    }

    record Image(String fileId) implements Segment {
        public Image {
            Objects.requireNonNull(fileId, "fileId");
        }

        @Override
        public String type() {
            return "image";
        }

        @Override
        public String plainText() {
            return "[image]";
        }
    }

    /** A reply to message {@code messageId} (by {@code userId}, {@code null} when unknown). */
    record Reply(String messageId, String userId) implements Segment {
        public Reply {
            Objects.requireNonNull(messageId, "messageId");
        }

        @Override
        public String type() {
            return "reply";
        }

        @Override
        public String plainText() {
            return "";
        }
    }

    /** A segment type this model has no record for (voice, file, location, platform extensions, ...). */
    record Other(String type, Map<String, Object> data) implements Segment {
        public Other {
            Objects.requireNonNull(type, "type");
            data = Checks.fields(data);
        }

        @Override
        public String plainText() {
            return "[" + type + "]";
        }
    }
}
