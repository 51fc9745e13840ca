package dev.pulsebus.onebot;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.pulsebus.pipeline.OutboundMessage;
import org.jspecify.annotations.Nullable;

/**
 * The answer to an event posted over HTTP when there is no HTTP API to send actions to: the replies made
 * while the event is handled. v11 takes one, as the quick operation {@code {"reply": ..., "at_sender":
 * false}}; v12 takes the list of actions its webhook runs. Closed once the answer is written; a reply after
 * that is refused. Thread-safe.
 */
final class QuickAnswer {

    private final int version;
    private @Nullable ObjectNode v11;
    private @Nullable ArrayNode v12;
    private boolean closed;

    QuickAnswer(int version) {
        this.version = version;
    }

    static String key(String selfId, String messageId) {
        return selfId + '\u0000' + messageId;
    }

    /** Takes {@code action} (which sends {@code message}) into the answer; false when it cannot. */
    synchronized boolean add(Protocol.Action action, OutboundMessage message) {
        if (closed) {
            return false;
        }
        if (version == 11) {
            if (v11 != null) {
                return false; // one quick reply per event
            }
            ObjectNode body = JsonNodeFactory.instance.objectNode();
            body.set("reply", V11Segments.write(message.message(), message.replyTo()));
            body.put("auto_escape", false);
            body.put("at_sender", false);
            v11 = body;
            return true;
        }
        if (v12 == null) {
            v12 = JsonNodeFactory.instance.arrayNode();
        }
        v12.addObject().put("action", action.name()).set("params", action.params());
        return true;
    }

    /** Closes it; the body to answer with, or null for none (204). */
    synchronized @Nullable JsonNode close() {
        closed = true;
        return version == 11 ? v11 : v12;
    }
}
