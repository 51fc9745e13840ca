package dev.pulsebus.onebot;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.pulsebus.internal.Json;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * The actions of one bot, typed: each returns a stage that completes with the response's {@code data} (JSON
 * null for actions that return none) or fails with a {@link OneBotActionException} (a retcode other than 0,
 * no response within {@code action_timeout_ms}, the connection lost, no connection). Ids are strings; v11
 * sends them as numbers. v12 has no standard action for some v11 ones (get a message, ban, kick, answer a
 * request): those fail at once as refused, and {@link #call} reaches an implementation's own actions.
 * Thread-safe; cheap to make.
 */
public final class OneBotActions {

    private final OneBotAdapter adapter;
    private final String selfId;
    private final Protocol protocol;

    OneBotActions(OneBotAdapter adapter, String selfId) {
        this.adapter = adapter;
        this.selfId = selfId;
        this.protocol = adapter.protocol;
    }

    public String selfId() {
        return selfId;
    }

    /** Any action, with {@code params} as JSON (maps, lists, strings, numbers, booleans). */
    public CompletionStage<JsonNode> call(String action, Map<String, ?> params) {
        ObjectNode p;
        try {
            p = Json.MAPPER.valueToTree(params);
        } catch (IllegalArgumentException e) {
            return CompletableFuture.failedFuture(e);
        }
        return adapter.call(selfId, action, p);
    }

    /** {@code delete_msg} (v11) / {@code delete_message} (v12): recalls a message. */
    public CompletionStage<JsonNode> deleteMessage(String messageId) {
        return run(v11() ? "delete_msg" : "delete_message", "message_id", messageId);
    }

    /** {@code get_msg} (v11 only). */
    public CompletionStage<JsonNode> getMessage(String messageId) {
        return v11() ? run("get_msg", "message_id", messageId) : none("get_msg");
    }

    /** {@code get_login_info} (v11) / {@code get_self_info} (v12): the bot's own id and nickname. */
    public CompletionStage<JsonNode> getLoginInfo() {
        return adapter.call(selfId, v11() ? "get_login_info" : "get_self_info", params());
    }

    public CompletionStage<JsonNode> getGroupInfo(String groupId) {
        return run("get_group_info", "group_id", groupId);
    }

    public CompletionStage<JsonNode> getGroupMemberInfo(String groupId, String userId) {
        ObjectNode p = params();
        protocol.putId(p, "group_id", groupId);
        protocol.putId(p, "user_id", userId);
        return adapter.call(selfId, "get_group_member_info", p);
    }

    public CompletionStage<JsonNode> getGroupMemberList(String groupId) {
        return run("get_group_member_list", "group_id", groupId);
    }

    /** {@code set_group_ban} (v11 only); a zero duration lifts the ban. */
    public CompletionStage<JsonNode> setGroupBan(String groupId, String userId, Duration duration) {
        if (!v11()) {
            return none("set_group_ban");
        }
        ObjectNode p = params();
        protocol.putId(p, "group_id", groupId);
        protocol.putId(p, "user_id", userId);
        p.put("duration", duration.toSeconds());
        return adapter.call(selfId, "set_group_ban", p);
    }

    /** {@code set_group_kick} (v11 only). */
    public CompletionStage<JsonNode> setGroupKick(String groupId, String userId, boolean rejectAddRequest) {
        if (!v11()) {
            return none("set_group_kick");
        }
        ObjectNode p = params();
        protocol.putId(p, "group_id", groupId);
        protocol.putId(p, "user_id", userId);
        p.put("reject_add_request", rejectAddRequest);
        return adapter.call(selfId, "set_group_kick", p);
    }

    /** {@code set_friend_add_request} (v11 only): answers a friend request by its {@code flag}. */
    public CompletionStage<JsonNode> setFriendAddRequest(String flag, boolean approve, String remark) {
        if (!v11()) {
            return none("set_friend_add_request");
        }
        ObjectNode p = params().put("flag", flag).put("approve", approve).put("remark", remark);
        return adapter.call(selfId, "set_friend_add_request", p);
    }

    /** {@code set_group_add_request} (v11 only); {@code subType} is the request's ({@code add} or {@code invite}). */
    public CompletionStage<JsonNode> setGroupAddRequest(String flag, String subType, boolean approve, String reason) {
        if (!v11()) {
            return none("set_group_add_request");
        }
        ObjectNode p = params().put("flag", flag).put("sub_type", subType).put("approve", approve).put("reason", reason);
        return adapter.call(selfId, "set_group_add_request", p);
    }

    private boolean v11() {
        return protocol.version == 11;
    }

    private static ObjectNode params() {
        return JsonNodeFactory.instance.objectNode();
    }

    private CompletionStage<JsonNode> run(String action, String key, String id) {
        ObjectNode p = params();
        protocol.putId(p, key, id);
        return adapter.call(selfId, action, p);
    }

    private static CompletionStage<JsonNode> none(String action) {
        return CompletableFuture.failedFuture(OneBotActionException.refused(action,
                "OneBot v12 has no standard action for it; use call(...) with the implementation's own"));
    }
}
