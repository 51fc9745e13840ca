package dev.pulsebus.server;

import com.fasterxml.jackson.databind.JsonNode;
import dev.pulsebus.internal.FailureLog;
import dev.pulsebus.internal.Json;
import dev.pulsebus.internal.Names;
import dev.pulsebus.transcript.NotYetStoredException;
import dev.pulsebus.transcript.TranscriptRecord;
import io.netty.buffer.ByteBufInputStream;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.QueryStringDecoder;
import java.io.IOException;
import java.util.List;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutorService;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The chat API, {@code /api/rooms/<room>/messages} (say, history) and {@code /api/rooms/<room>/poll}, for
 * a request {@link HttpHandler} has routed here and authorized. A say and a history served from memory
 * are answered on the I/O thread; a read of the store runs on a virtual thread of {@code work}.
 */
final class ChatApi {

    private static final Logger LOG = LoggerFactory.getLogger(ChatApi.class);
    private final FailureLog sayFailures = new FailureLog(LOG, "Storing a say");

    private final ServerConfig config;
    private final HttpChat chat;
    private final RoomHistory rooms;
    private final LongPollRooms polls;
    private final ExecutorService work;
    private final CountedResponses out;

    ChatApi(ServerConfig config, HttpChat chat, RoomHistory rooms, LongPollRooms polls, ExecutorService work,
            CountedResponses out) {
        this.config = config;
        this.chat = chat;
        this.rooms = rooms;
        this.polls = polls;
        this.work = work;
        this.out = out;
    }

    /** Answers a request for {@code path}, which starts with {@code /api/}. */
    void handle(ChannelHandlerContext ctx, FullHttpRequest req, QueryStringDecoder uri, String path, boolean keepAlive) {
        String[] parts = path.split("/", -1); // "", "api", "rooms", room, action
        if (parts.length != 5 || !parts[2].equals("rooms")) {
            out.error(ctx, Route.UNKNOWN, HttpResponseStatus.NOT_FOUND, "no such path: " + path, keepAlive);
            return;
        }
        String room = parts[3];
        String action = parts[4];
        Route route = action.equals("poll") ? Route.POLL : action.equals("messages") ? Route.MESSAGES : null;
        if (route == null) {
            out.error(ctx, Route.UNKNOWN, HttpResponseStatus.NOT_FOUND, "no such path: " + path, keepAlive);
            return;
        }
        RequestTimers.route(ctx, route == Route.POLL ? out.timers.poll : out.timers.messages);
        String bad = Names.problem("room name", room);
        if (bad != null) {
            out.error(ctx, route, HttpResponseStatus.BAD_REQUEST, bad, keepAlive);
            return;
        }
        try {
            if (route == Route.POLL) {
                if (out.allow(ctx, req.method(), "GET", Route.POLL, keepAlive)) {
                    long after = param(uri, "after", 0, 0, Long.MAX_VALUE);
                    int limit = (int) param(uri, "limit", 100, 1, 1000);
                    long timeout = param(uri, "timeout_ms", 30_000, 0, config.listen().maxPollTimeoutMs());
                    out.count(Route.POLL, HttpResponseStatus.OK);
                    polls.park(ctx, room, after, limit, timeout, keepAlive);
                }
            } else if (req.method().equals(HttpMethod.POST)) {
                say(ctx, req, room, keepAlive);
            } else if (out.allow(ctx, req.method(), "GET, POST", Route.HISTORY, keepAlive)) {
                int limit = (int) param(uri, "limit", 50, 1, 1000);
                long before = param(uri, "before", Long.MAX_VALUE, 1, Long.MAX_VALUE);
                List<byte[]> recent = rooms.fromMemory(room, limit, before);
                if (recent != null) {
                    out.json(ctx, Route.HISTORY, HttpResponseStatus.OK, Responses.messagesWritten(ctx, recent), keepAlive);
                } else {
                    work.execute(() -> history(ctx, room, limit, before, keepAlive));
                }
            }
        } catch (IllegalArgumentException e) {
            out.error(ctx, route, HttpResponseStatus.BAD_REQUEST, String.valueOf(e.getMessage()), keepAlive);
        }
    }

    private void say(ChannelHandlerContext ctx, FullHttpRequest req, String room, boolean keepAlive) {
        JsonNode body;
        try {
            body = Json.MAPPER.readTree(new ByteBufInputStream(req.content()));
        } catch (IOException e) {
            out.error(ctx, Route.SAY, HttpResponseStatus.BAD_REQUEST, "body is not valid JSON: " + String.valueOf(e.getMessage()).lines()
                    .findFirst().orElse(""), keepAlive);
            return;
        }
        if (body == null || !body.isObject()) {
            out.error(ctx, Route.SAY, HttpResponseStatus.BAD_REQUEST,
                    "body must be a JSON object {\"user\": \"...\", \"text\": \"...\"}", keepAlive);
            return;
        }
        JsonNode user = body.get("user");
        JsonNode text = body.get("text");
        JsonNode id = body.get("id");
        String problem = user == null || !user.isTextual() ? "field 'user' is missing or not a string"
                : text == null || !text.isTextual() ? "field 'text' is missing or not a string"
                : text.asText().isBlank() ? "field 'text' is empty"
                : checkUser(user.asText());
        if (problem == null && id != null && !id.isNull()) {
            problem = checkId(id);
        }
        if (problem != null) {
            out.error(ctx, Route.SAY, HttpResponseStatus.BAD_REQUEST, problem, keepAlive);
            return;
        }
        CompletionStage<TranscriptRecord> stored;
        try {
            stored = id == null || id.isNull() ? chat.say(room, user.asText(), text.asText())
                    : chat.say(room, user.asText(), text.asText(), id.asText());
        } catch (RuntimeException e) { // shutting down, or the transcript buffer refused it
            out.error(ctx, Route.SAY, HttpResponseStatus.SERVICE_UNAVAILABLE, "not stored: " + e.getMessage(), keepAlive);
            return;
        }
        stored.whenComplete((record, error) -> {
            Throwable cause = error instanceof CompletionException c && c.getCause() != null ? c.getCause() : error;
            if (cause instanceof HttpChat.IdTaken taken) {
                out.error(ctx, Route.SAY, HttpResponseStatus.CONFLICT, String.valueOf(taken.getMessage()), keepAlive);
            } else if (cause instanceof NotYetStoredException kept) {
                // taken, and stored later (at most once): 202, with the seq it will have; not to be resent
                sayFailures.failed(cause, "in room " + room);
                answer(ctx, HttpResponseStatus.ACCEPTED, kept.record(), keepAlive);
            } else if (cause instanceof HttpChat.Accepted accepted) { // cluster: taken, not yet confirmed stored
                sayFailures.failed(cause, "in room " + room);
                if (accepted.record != null) {
                    answer(ctx, HttpResponseStatus.ACCEPTED, accepted.record, keepAlive);
                } else {
                    out.error(ctx, Route.SAY, HttpResponseStatus.ACCEPTED, String.valueOf(accepted.getMessage()),
                            keepAlive);
                }
            } else if (cause != null) {
                sayFailures.failed(cause, "in room " + room); // a store that is down refuses many: not a line each
                out.error(ctx, Route.SAY, HttpResponseStatus.SERVICE_UNAVAILABLE, "not stored: " + cause.getMessage(),
                        keepAlive);
            } else if (record == null) {
                out.error(ctx, Route.SAY, HttpResponseStatus.SERVICE_UNAVAILABLE,
                        "the server is busy (too many messages waiting); not stored, try again", keepAlive);
            } else {
                answer(ctx, HttpResponseStatus.CREATED, record, keepAlive);
            }
        });
    }

    /** A say's answer: the message as stored (201) or as it will be (202). */
    private void answer(ChannelHandlerContext ctx, HttpResponseStatus status, TranscriptRecord record, boolean keepAlive) {
        try {
            out.json(ctx, Route.SAY, status, Responses.message(ctx, record), keepAlive);
        } catch (RuntimeException e) { // a completion stage would swallow it and leave the client waiting
            LOG.warn("Say stored as seq {}, but not answered: {}", record.seq(), e.toString());
            out.error(ctx, Route.SAY, HttpResponseStatus.INTERNAL_SERVER_ERROR, "taken as seq " + record.seq()
                    + ", but the answer could not be written: " + e.getMessage(), keepAlive);
        }
    }

    private void history(ChannelHandlerContext ctx, String room, int limit, long before, boolean keepAlive) {
        try {
            List<TranscriptRecord> records = rooms.stored(room, limit, before);
            out.json(ctx, Route.HISTORY, HttpResponseStatus.OK, Responses.messages(ctx, records), keepAlive);
        } catch (Exception e) {
            out.error(ctx, Route.HISTORY, HttpResponseStatus.SERVICE_UNAVAILABLE, "cannot read the room: " + e.getMessage(),
                    keepAlive);
        }
    }

    /**
     * Null when {@code user} is 1 to 64 characters without control characters and not the bot's name (in
     * any case, with or without surrounding spaces or invisible characters, in lookalike letters:
     * {@link ReservedName}; the bot's replies are recorded as {@link HttpChat#BOT_USER}, and no one else may
     * speak as it); otherwise what is wrong.
     */
    static @Nullable String checkUser(String user) {
        if (user.isBlank() || user.length() > Names.MAX) {
            return "field 'user' must be 1 to " + Names.MAX + " characters, not blank";
        }
        if (ReservedName.is(user, HttpChat.BOT_USER)) {
            return "field 'user' must not be '" + HttpChat.BOT_USER + "': the bot's name is reserved";
        }
        for (int i = 0; i < user.length(); i++) {
            if (Character.isISOControl(user.charAt(i))) {
                return "field 'user' has a control character at " + i;
            }
        }
        return null;
    }

    /** The longest id a client may give its say. */
    static final int MAX_ID = 64;

    /**
     * Null when {@code id} is a string of 1 to {@value #MAX_ID} letters, digits, {@code .}, {@code _}, {@code :} or
     * {@code -} (a UUID fits); otherwise what is wrong.
     */
    static @Nullable String checkId(JsonNode id) {
        String s = id.isTextual() ? id.asText() : "";
        if (s.isEmpty() || s.length() > MAX_ID) {
            return "field 'id' must be a string of 1 to " + MAX_ID + " characters";
        }
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' || c == '_'
                    || c == ':' || c == '-')) {
                return "field 'id' may hold letters, digits, '.', '_', ':' and '-' only, not '" + c + "' at " + i;
            }
        }
        return null;
    }

    private static long param(QueryStringDecoder uri, String name, long dflt, long min, long max) {
        List<String> values = uri.parameters().get(name);
        if (values == null || values.isEmpty()) {
            return dflt;
        }
        long v;
        try {
            v = Long.parseLong(values.get(0));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("query parameter " + name + " must be an integer, was '" + values.get(0) + "'");
        }
        if (v < min || v > max) {
            throw new IllegalArgumentException("query parameter " + name + " must be between " + min + " and " + max
                    + ", was " + v);
        }
        return v;
    }
}
