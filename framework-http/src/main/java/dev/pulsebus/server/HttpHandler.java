package dev.pulsebus.server;

import com.fasterxml.jackson.databind.JsonNode;
import dev.pulsebus.internal.FailureLog;
import dev.pulsebus.internal.Json;
import dev.pulsebus.internal.Names;
import dev.pulsebus.module.HttpRoute;
import dev.pulsebus.module.Routes;
import dev.pulsebus.transcript.NotYetStoredException;
import dev.pulsebus.transcript.TranscriptRecord;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufInputStream;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.handler.codec.DecoderResult;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.QueryStringDecoder;
import io.netty.handler.codec.http.TooLongHttpHeaderException;
import io.netty.handler.codec.http.TooLongHttpLineException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Routes requests. Everything that may wait (storage, metrics scrape, health ping) runs on a virtual
 * thread of {@code work}; the I/O thread only parses, checks and writes. Every error is JSON
 * {@code {"error": "...", "status": n}}.
 */
@ChannelHandler.Sharable
final class HttpHandler extends SimpleChannelInboundHandler<FullHttpRequest> {

    private static final Logger LOG = LoggerFactory.getLogger(HttpHandler.class);
    private final FailureLog sayFailures = new FailureLog(LOG, "Storing a say");
    private static final String OPENMETRICS = "application/openmetrics-text";
    private static final String OPENMETRICS_TYPE = "application/openmetrics-text; version=1.0.0; charset=utf-8";
    private static final String PROMETHEUS_TYPE = "text/plain; version=0.0.4; charset=utf-8";

    /** What /health reports: its status code and body, computed on a virtual thread. */
    record Health(HttpResponseStatus status, byte[] body) {
    }

    /** /health's answer; with the failed components' error text only for a client the token admits. */
    interface HealthCheck {
        Health answer(boolean withError);
    }

    private final ServerConfig config;
    private final HttpChat chat;
    private final LongPollRooms polls;
    private final ExecutorService work;
    private final @Nullable PrometheusMeterRegistry prometheus;
    private final MeterRegistry registry;
    private final Runnable beforeScrape; // waits for the JVM meters, bound once the server listens
    private final HealthCheck health;
    private final Routes routes;
    private final byte[] token;
    /** The bounded label set of pulsebus_http_requests_total: these routes times the status codes. */
    private static final List<String> ROUTES = List.of("health", "metrics", "say", "history", "poll", "messages",
            "api", "module", "unknown", "bad");
    private final Counter[][] counters = new Counter[ROUTES.size()][600];

    HttpHandler(ServerConfig config, HttpChat chat, LongPollRooms polls, ExecutorService work,
                @Nullable PrometheusMeterRegistry prometheus, MeterRegistry registry, Runnable beforeScrape,
                HealthCheck health, Routes routes) {
        super(true);
        this.config = config;
        this.chat = chat;
        this.polls = polls;
        this.work = work;
        this.prometheus = prometheus;
        this.registry = registry;
        this.beforeScrape = beforeScrape;
        this.health = health;
        this.routes = routes;
        this.token = config.token().isEmpty() ? null : ("Bearer " + config.token()).getBytes(StandardCharsets.UTF_8);
    }

    @Override
    protected void channelRead0(ChannelHandlerContext ctx, FullHttpRequest req) {
        DecoderResult decoded = req.decoderResult();
        if (!decoded.isSuccess()) {
            badRequest(ctx, decoded.cause());
            return;
        }
        HttpVersion version = req.protocolVersion();
        if (version != HttpVersion.HTTP_1_1 && version != HttpVersion.HTTP_1_0 && version.majorVersion() != 1) {
            // The codec takes any HTTP/x.y. Another 1.x is read as 1.1, the highest minor version of the
            // major one served (RFC 9110, 2.5).
            refuse(ctx, HttpResponseStatus.HTTP_VERSION_NOT_SUPPORTED, version.text()
                    + " is not supported: this server speaks HTTP/1.1 (and 1.0)");
            return;
        }
        boolean keepAlive = HttpUtil.isKeepAlive(req);
        QueryStringDecoder uri = new QueryStringDecoder(req.uri());
        String path = uri.path();
        HttpMethod method = req.method();
        if (path.equals("/health")) {
            if (allow(ctx, method, "GET", "health", keepAlive)) {
                Health h = health.answer(admitted(req)); // field reads only: answered on the I/O thread
                reply(ctx, "health", h.status(), Unpooled.wrappedBuffer(h.body()), keepAlive);
            }
            return;
        }
        if (path.equals("/metrics")) {
            if (prometheus == null) {
                fail(ctx, "metrics", HttpResponseStatus.NOT_FOUND, "metrics are turned off (metrics.enabled)", keepAlive);
            } else if (allow(ctx, method, "GET", "metrics", keepAlive)) {
                String accept = req.headers().get(HttpHeaderNames.ACCEPT, "");
                work.execute(() -> scrape(ctx, accept.contains(OPENMETRICS), keepAlive));
            }
            return;
        }
        if (path.startsWith("/api/")) {
            api(ctx, req, uri, path, keepAlive);
            return;
        }
        if (path.startsWith("/modules/")) {
            if (authorized(ctx, req)) {
                module(ctx, req, uri, path, keepAlive);
            }
            return;
        }
        fail(ctx, "unknown", HttpResponseStatus.NOT_FOUND, "no such path: " + path, keepAlive);
    }

    /** A module's route, run on a virtual thread (module code may block). */
    private void module(ChannelHandlerContext ctx, FullHttpRequest req, QueryStringDecoder uri, String path,
                        boolean keepAlive) {
        HttpRoute route = routes.find(req.method().name(), path);
        if (route == null) {
            String allowed = routes.allowed(path);
            if (allowed != null) {
                if (allow(ctx, req.method(), allowed, "module", keepAlive)) { // not among them: 405 with Allow
                    // among them after all: a module (re)loaded this route since the lookup above
                    fail(ctx, "module", HttpResponseStatus.SERVICE_UNAVAILABLE,
                            "the route is being reloaded; try again", keepAlive);
                }
            } else {
                fail(ctx, "unknown", HttpResponseStatus.NOT_FOUND, "no such path: " + path, keepAlive);
            }
            return;
        }
        String module = path.substring("/modules/".length());
        String sub = module.indexOf('/') < 0 ? "/" : module.substring(module.indexOf('/'));
        Map<String, String> query = new LinkedHashMap<>();
        uri.parameters().forEach((k, v) -> query.put(k, v.isEmpty() ? "" : v.get(0)));
        HttpRoute.Request request = new HttpRoute.Request(req.method().name(), sub, query,
                req.content().toString(StandardCharsets.UTF_8));
        work.execute(() -> {
            try {
                HttpRoute.Reply reply = route.handle(request);
                HttpResponseStatus status = HttpResponseStatus.valueOf(reply.status());
                byte[] body = reply.body() == null ? new byte[0] : reply.body().getBytes(StandardCharsets.UTF_8);
                count("module", status);
                Responses.write(ctx, status, reply.contentType(), Unpooled.wrappedBuffer(body), keepAlive);
            } catch (Throwable e) { // whatever the module did, the request gets an answer
                LOG.warn("Route {} {} failed: {}", request.method(), path, e.toString());
                fail(ctx, "module", HttpResponseStatus.INTERNAL_SERVER_ERROR, "the module failed: " + e.getMessage(),
                        keepAlive);
            }
        });
    }

    /** True when no token is set or the request carries it; otherwise answers 401. */
    private boolean authorized(ChannelHandlerContext ctx, FullHttpRequest req) {
        if (admitted(req)) {
            return true;
        }
        count("api", HttpResponseStatus.UNAUTHORIZED);
        Responses.error(ctx, HttpResponseStatus.UNAUTHORIZED, "missing or wrong token: send Authorization: Bearer <token>",
                HttpUtil.isKeepAlive(req), HttpHeaderNames.WWW_AUTHENTICATE, "Bearer");
        return false;
    }

    /** True when no token is set or the request carries it (answers nothing). */
    private boolean admitted(FullHttpRequest req) {
        if (token == null) {
            return true;
        }
        String auth = req.headers().get(HttpHeaderNames.AUTHORIZATION);
        return auth != null && MessageDigest.isEqual(token, auth.getBytes(StandardCharsets.UTF_8));
    }

    private void api(ChannelHandlerContext ctx, FullHttpRequest req, QueryStringDecoder uri, String path,
                     boolean keepAlive) {
        if (!authorized(ctx, req)) {
            return;
        }
        String[] parts = path.split("/", -1); // "", "api", "rooms", room, action
        if (parts.length != 5 || !parts[2].equals("rooms")) {
            fail(ctx, "unknown", HttpResponseStatus.NOT_FOUND, "no such path: " + path, keepAlive);
            return;
        }
        String room = parts[3];
        String action = parts[4];
        if (!action.equals("messages") && !action.equals("poll")) {
            fail(ctx, "unknown", HttpResponseStatus.NOT_FOUND, "no such path: " + path, keepAlive);
            return;
        }
        String bad = Names.problem("room name", room);
        if (bad != null) {
            fail(ctx, action, HttpResponseStatus.BAD_REQUEST, bad, keepAlive);
            return;
        }
        try {
            if (action.equals("poll")) {
                if (allow(ctx, req.method(), "GET", "poll", keepAlive)) {
                    long after = param(uri, "after", 0, 0, Long.MAX_VALUE);
                    int limit = (int) param(uri, "limit", 100, 1, 1000);
                    long timeout = param(uri, "timeout_ms", 30_000, 0, config.maxPollTimeoutMs());
                    count("poll", HttpResponseStatus.OK);
                    polls.park(ctx, room, after, limit, timeout, keepAlive);
                }
            } else if (req.method().equals(HttpMethod.POST)) {
                say(ctx, req, room, keepAlive);
            } else if (allow(ctx, req.method(), "GET, POST", "history", keepAlive)) {
                int limit = (int) param(uri, "limit", 50, 1, 1000);
                long before = param(uri, "before", Long.MAX_VALUE, 1, Long.MAX_VALUE);
                List<byte[]> recent = chat.recentHistory(room, limit, before);
                if (recent != null) {
                    reply(ctx, "history", HttpResponseStatus.OK, Responses.messagesWritten(ctx, recent), keepAlive);
                } else {
                    work.execute(() -> history(ctx, room, limit, before, keepAlive));
                }
            }
        } catch (IllegalArgumentException e) {
            fail(ctx, action, HttpResponseStatus.BAD_REQUEST, e.getMessage(), keepAlive);
        }
    }

    private void say(ChannelHandlerContext ctx, FullHttpRequest req, String room, boolean keepAlive) {
        JsonNode body;
        try {
            body = Json.MAPPER.readTree(new ByteBufInputStream(req.content()));
        } catch (IOException e) {
            fail(ctx, "say", HttpResponseStatus.BAD_REQUEST, "body is not valid JSON: " + e.getMessage().lines()
                    .findFirst().orElse(""), keepAlive);
            return;
        }
        if (body == null || !body.isObject()) {
            fail(ctx, "say", HttpResponseStatus.BAD_REQUEST,
                    "body must be a JSON object {\"user\": \"...\", \"text\": \"...\"}", keepAlive);
            return;
        }
        JsonNode user = body.get("user");
        JsonNode text = body.get("text");
        String problem = user == null || !user.isTextual() ? "field 'user' is missing or not a string"
                : text == null || !text.isTextual() ? "field 'text' is missing or not a string"
                : text.asText().isBlank() ? "field 'text' is empty"
                : checkUser(user.asText());
        if (problem != null) {
            fail(ctx, "say", HttpResponseStatus.BAD_REQUEST, problem, keepAlive);
            return;
        }
        java.util.concurrent.CompletionStage<TranscriptRecord> stored;
        try {
            stored = chat.say(room, user.asText(), text.asText());
        } catch (RuntimeException e) { // shutting down, or the transcript buffer refused it
            fail(ctx, "say", HttpResponseStatus.SERVICE_UNAVAILABLE, "not stored: " + e.getMessage(), keepAlive);
            return;
        }
        stored.whenComplete((record, error) -> {
            Throwable cause = error instanceof java.util.concurrent.CompletionException c && c.getCause() != null
                    ? c.getCause() : error;
            if (cause instanceof NotYetStoredException kept) {
                // taken, and stored later (at most once): 202, with the seq it will have; not to be resent
                sayFailures.failed(cause, "in room " + room);
                answer(ctx, HttpResponseStatus.ACCEPTED, kept.record(), keepAlive);
            } else if (cause != null) {
                sayFailures.failed(cause, "in room " + room); // a store that is down refuses many: not a line each
                fail(ctx, "say", HttpResponseStatus.SERVICE_UNAVAILABLE, "not stored: " + cause.getMessage(), keepAlive);
            } else if (record == null) {
                fail(ctx, "say", HttpResponseStatus.SERVICE_UNAVAILABLE,
                        "the server is busy (too many messages waiting); not stored, try again", keepAlive);
            } else {
                answer(ctx, HttpResponseStatus.CREATED, record, keepAlive);
            }
        });
    }

    /** A say's answer: the message as stored (201) or as it will be (202). */
    private void answer(ChannelHandlerContext ctx, HttpResponseStatus status, TranscriptRecord record, boolean keepAlive) {
        try {
            reply(ctx, "say", status, Responses.message(ctx, record), keepAlive);
        } catch (RuntimeException e) { // a completion stage would swallow it and leave the client waiting
            LOG.warn("Say stored as seq {}, but not answered: {}", record.seq(), e.toString());
            fail(ctx, "say", HttpResponseStatus.INTERNAL_SERVER_ERROR, "taken as seq " + record.seq()
                    + ", but the answer could not be written: " + e.getMessage(), keepAlive);
        }
    }

    private void history(ChannelHandlerContext ctx, String room, int limit, long before, boolean keepAlive) {
        try {
            List<TranscriptRecord> records = chat.storedHistory(room, limit, before);
            reply(ctx, "history", HttpResponseStatus.OK, Responses.messages(ctx, records), keepAlive);
        } catch (Exception e) {
            fail(ctx, "history", HttpResponseStatus.SERVICE_UNAVAILABLE, "cannot read the room: " + e.getMessage(), keepAlive);
        }
    }

    private void scrape(ChannelHandlerContext ctx, boolean openMetrics, boolean keepAlive) {
        String type = openMetrics ? OPENMETRICS_TYPE : PROMETHEUS_TYPE;
        beforeScrape.run();
        byte[] text = prometheus.scrape(type).getBytes(StandardCharsets.UTF_8);
        count("metrics", HttpResponseStatus.OK);
        Responses.write(ctx, HttpResponseStatus.OK, type, Unpooled.wrappedBuffer(text), keepAlive);
    }

    private void badRequest(ChannelHandlerContext ctx, Throwable cause) {
        if (cause instanceof TooLongHttpHeaderException) {
            refuse(ctx, HttpResponseStatus.REQUEST_HEADER_FIELDS_TOO_LARGE,
                    "request headers are over the limit of " + config.maxHeaderBytes() + " bytes");
        } else if (cause instanceof TooLongHttpLineException) {
            refuse(ctx, HttpResponseStatus.REQUEST_URI_TOO_LONG,
                    "request line is over the limit of " + ServerInitializer.MAX_REQUEST_LINE + " bytes");
        } else {
            refuse(ctx, HttpResponseStatus.BAD_REQUEST, "malformed request: " + cause.getMessage());
        }
    }

    /** A request not read to its end: refused, the connection closed lingeringly (see {@link Responses#refuse}). */
    private void refuse(ChannelHandlerContext ctx, HttpResponseStatus status, String message) {
        count("bad", status);
        Responses.refuse(ctx, status, message);
    }

    /** True when {@code method} is among {@code allowed}; otherwise answers 405 with Allow. */
    private boolean allow(ChannelHandlerContext ctx, HttpMethod method, String allowed, String route, boolean keepAlive) {
        String name = method.name();
        for (int from = 0; from < allowed.length(); ) { // "GET, POST": no String.split, which compiles a regex per call
            int end = allowed.indexOf(", ", from);
            end = end < 0 ? allowed.length() : end;
            if (end - from == name.length() && allowed.startsWith(name, from)) {
                return true;
            }
            from = end + 2;
        }
        count(route, HttpResponseStatus.METHOD_NOT_ALLOWED);
        Responses.error(ctx, HttpResponseStatus.METHOD_NOT_ALLOWED, method.name() + " is not allowed here; allowed: "
                + allowed, keepAlive, HttpHeaderNames.ALLOW, allowed);
        return false;
    }

    private void reply(ChannelHandlerContext ctx, String route, HttpResponseStatus status, ByteBuf body, boolean keepAlive) {
        count(route, status);
        Responses.json(ctx, status, body, keepAlive);
    }

    private void fail(ChannelHandlerContext ctx, String route, HttpResponseStatus status, String message, boolean keepAlive) {
        count(route, status);
        Responses.error(ctx, status, message, keepAlive);
    }

    private void count(String route, HttpResponseStatus status) {
        int code = status.code();
        int r = ROUTES.indexOf(route);
        Counter c = code < 600 ? counters[r][code] : null;
        if (c == null) {
            c = registry.counter("pulsebus.http.requests", "route", route, "status", Integer.toString(code));
            if (code < 600) {
                counters[r][code] = c; // a benign race: the registry hands out one counter per id
            }
        }
        c.increment();
    }

    /**
     * Null when {@code user} is 1 to 64 characters without control characters and not the bot's name (in
     * any case, with or without surrounding spaces: the bot's replies are recorded as {@link HttpChat#BOT_USER},
     * and no one else may speak as it); otherwise what is wrong.
     */
    static @Nullable String checkUser(String user) {
        if (user.isBlank() || user.length() > Names.MAX) {
            return "field 'user' must be 1 to " + Names.MAX + " characters, not blank";
        }
        if (user.strip().equalsIgnoreCase(HttpChat.BOT_USER)) {
            return "field 'user' must not be '" + HttpChat.BOT_USER + "': the bot's name is reserved";
        }
        for (int i = 0; i < user.length(); i++) {
            if (Character.isISOControl(user.charAt(i))) {
                return "field 'user' has a control character at " + i;
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

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        LOG.debug("Connection {} failed: {}", ctx.channel().remoteAddress(), cause.toString());
        ctx.close();
    }
}
