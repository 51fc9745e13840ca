package dev.pulsebus.onebot;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.pulsebus.event.ChatRef;
import dev.pulsebus.pipeline.OutboundMessage;
import io.netty.buffer.ByteBuf;
import java.io.IOException;
import org.jspecify.annotations.Nullable;

/**
 * OneBot v11: {@code post_type} {@code message} (private, group), {@code notice}, {@code request} and
 * {@code meta_event} onto the records, read by {@link V11Decoder}. v11 events have no id; one is made from the bot and the
 * {@code message_id} (messages), the {@code flag} (requests) or a digest of the frame (notices, meta
 * events), so a retransmitted frame gets the same id and the pipeline drops it. The {@code notice_type},
 * {@code request_type} or {@code meta_event_type} is the record's {@code detailType}; every field the
 * record has no component for is kept in its {@code fields} or {@code extra}, under the v11 name.
 */
final class V11Protocol extends Protocol {

    V11Protocol() {
        super(11);
    }

    @Override
    @Nullable Object decode(ByteBuf frame, String selfHint, OneBotMetrics metrics) {
        Object decoded = V11Decoder.decode(frame, selfHint, platform, metrics);
        if (decoded == RESPONSE) {
            JsonNode node = tree(frame);
            return node == null ? unreadable(frame) : node; // V11Decoder may have stopped at its echo or retcode
        }
        return decoded;
    }

    @Override
    Action send(OutboundMessage m) {
        ChatRef chat = m.chat();
        return switch (chat.detailType()) {
            case ChatRef.PRIVATE -> new Send("send_private_msg", "user_id", chat.id(), m);
            case ChatRef.GROUP -> new Send("send_group_msg", "group_id", chat.id(), m);
            default -> throw new IllegalArgumentException("OneBot v11 has no channels: cannot send to " + chat);
        };
    }

    /** A send's action: its parameters written straight into the frame, with no tree. */
    private static final class Send extends Action {
        private final String key;
        private final String id;
        private final OutboundMessage message;

        Send(String action, String key, String id, OutboundMessage message) {
            super(action);
            this.key = key;
            this.id = id;
            this.message = message;
        }

        @Override
        void writeParams(JsonGenerator g) throws IOException {
            g.writeStartObject();
            long n = digits(id);
            if (n >= 0) {
                g.writeNumberField(key, n);
            } else {
                g.writeStringField(key, id);
            }
            g.writeFieldName("message");
            V11Segments.write(g, message.message(), message.replyTo());
            g.writeEndObject();
        }
    }

    @Override
    void putId(ObjectNode params, String key, String id) {
        long n = digits(id);
        if (n >= 0) {
            params.put(key, n);
        } else {
            params.put(key, id);
        }
    }

    /** {@code id} as a number when it is 1-18 digits, else -1. */
    private static long digits(String id) {
        if (id.isEmpty() || id.length() > 18) {
            return -1;
        }
        long n = 0;
        for (int i = 0; i < id.length(); i++) {
            char c = id.charAt(i);
            if (c < '0' || c > '9') {
                return -1;
            }
            n = n * 10 + (c - '0');
        }
        return n;
    }


}
