package dev.pulsebus.onebot;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.pulsebus.pipeline.OutboundMessage;
import org.jspecify.annotations.Nullable;

/**
 * The answer to an event posted over HTTP when there is no HTTP API to send actions to: what the bot did
 * while the event was handled. v11 takes its quick operations (event/message.md, event/request.md): one
 * {@code reply} (without an @ of the sender), and for a group message {@code delete}, {@code kick} and
 * {@code ban} of its sender, for a request {@code approve} with its {@code remark} or {@code reason}; v12
 * takes the list of actions its webhook runs (the replies). Closed once the answer is written; what comes
 * after is refused. Thread-safe.
 */
final class QuickAnswer {

    private final int version;
    private @Nullable ObjectNode v11;
    private @Nullable ArrayNode v12;
    private boolean replied;
    private boolean closed;

    QuickAnswer(int version) {
        this.version = version;
    }

    /** The key of the event {@code id} (a message id, or {@code flag:}, {@code g:<group>:<user>}) of bot {@code selfId}. */
    static String key(String selfId, String id) {
        return selfId + '\u0000' + id;
    }

    /** Takes {@code action} (which sends {@code message}) into the answer; false when it cannot. */
    synchronized boolean add(Protocol.Action action, OutboundMessage message) {
        if (closed) {
            return false;
        }
        if (version == 11) {
            if (replied) {
                return false; // one quick reply per event
            }
            replied = true;
            ObjectNode body = v11();
            body.set("reply", action.params().get("message")); // the send's segments, its reply first
            body.put("auto_escape", false);
            body.put("at_sender", false);
            return true;
        }
        if (v12 == null) {
            v12 = JsonNodeFactory.instance.arrayNode();
        }
        v12.addObject().put("action", action.name()).set("params", action.params());
        return true;
    }

    /** Takes a v11 action as its quick operation; false when it has none (or the answer is written). */
    synchronized boolean operation(String action, JsonNode params) {
        if (closed || version != 11) {
            return false;
        }
        switch (action) {
            case "delete_msg" -> v11().put("delete", true);
            case "set_group_kick" -> {
                if (params.path("reject_add_request").asBoolean(false)) {
                    return false; // the quick kick leaves later requests open
                }
                v11().put("kick", true);
            }
            case "set_group_ban" -> {
                long seconds = params.path("duration").asLong(30 * 60);
                if (seconds <= 0) {
                    return false; // lifting a ban is no quick operation
                }
                v11().put("ban", true).put("ban_duration", seconds);
            }
            case "set_friend_add_request", "set_group_add_request" -> {
                boolean approve = params.path("approve").asBoolean(true);
                ObjectNode body = v11().put("approve", approve);
                String remark = params.path("remark").asText("");
                String reason = params.path("reason").asText("");
                if (approve && !remark.isEmpty()) {
                    body.put("remark", remark);
                } else if (!approve && !reason.isEmpty()) {
                    body.put("reason", reason);
                }
            }
            default -> {
                return false;
            }
        }
        return true;
    }

    private ObjectNode v11() {
        if (v11 == null) {
            v11 = JsonNodeFactory.instance.objectNode();
        }
        return v11;
    }

    /** Closes it; the body to answer with, or null for none (204). */
    synchronized @Nullable JsonNode close() {
        closed = true;
        return version == 11 ? v11 : v12;
    }
}
