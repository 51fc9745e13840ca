package dev.pulsebus.onebot;

import com.fasterxml.jackson.databind.JsonNode;
import dev.pulsebus.adapter.WriteLimit;
import dev.pulsebus.internal.Json;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPipeline;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.QueryStringDecoder;
import io.netty.handler.codec.http.websocketx.WebSocketServerHandshaker;
import io.netty.handler.codec.http.websocketx.WebSocketServerHandshakerFactory;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import org.jspecify.annotations.Nullable;

/**
 * The adapter's paths on the server's port. {@code /onebot/v11/ws} (and {@code /ws/api}, {@code /ws/event}
 * for v11's split roles; {@code /onebot/v12/ws}): the reverse WebSocket, whose handshake is refused with 401
 * before the upgrade when the access token (header {@code Authorization: Bearer}, or query
 * {@code access_token}) is set and not given, and with 403 when it carries an {@code Origin} not in
 * {@code allowed_origins} (an implementation sends none; a browser always does, and a page on any site could
 * otherwise drive the bot); {@code X-Self-ID} names the bot. {@code /onebot/v11/http}
 * ({@code /onebot/v12/http}): events POSTed by the implementation, v11's checked by {@code X-Signature}
 * (HMAC-SHA1 of the body, 403 when wrong) when a secret is set, v12's by the access token (401). A path of a
 * mode not configured answers 404. Runs on the I/O thread.
 */
final class Endpoint {

    private final OneBotAdapter adapter;
    final String prefix;
    private final String ws;
    private final String http;
    private final byte @Nullable [] token;
    private final @Nullable SecretKeySpec secret;

    Endpoint(OneBotAdapter adapter) {
        this.adapter = adapter;
        this.prefix = "/onebot/v" + adapter.protocol.version + "/";
        this.ws = prefix + "ws";
        this.http = prefix + "http";
        String t = adapter.settings.accessToken().reveal();
        this.token = t.isEmpty() ? null : t.getBytes(StandardCharsets.UTF_8);
        String s = adapter.settings.secret().reveal();
        this.secret = s.isEmpty() ? null : new SecretKeySpec(s.getBytes(StandardCharsets.UTF_8), "HmacSHA1");
    }

    /** Every path an adapter of either version may serve. */
    private static final java.util.Set<String> PATHS = java.util.Set.of("/onebot/v11/ws", "/onebot/v11/ws/api",
            "/onebot/v11/ws/event", "/onebot/v11/http", "/onebot/v12/ws", "/onebot/v12/http");

    /** {@code path} as one of {@link #PATHS} (a trailing slash dropped, as {@link #route} does), or null. */
    static @Nullable String template(String path) {
        String p = path.endsWith("/") ? path.substring(0, path.length() - 1) : path;
        return PATHS.contains(p) ? p : null;
    }

    boolean route(ChannelHandlerContext ctx, FullHttpRequest req, String path) {
        if (path.endsWith("/") && path.length() > prefix.length()) {
            path = path.substring(0, path.length() - 1);
        }
        WsConnection.Role role;
        if (path.equals(ws)) {
            role = roleOf(req.headers().get("X-Client-Role", "Universal"));
        } else if (path.equals(ws + "/api") && adapter.protocol.version == 11) {
            role = WsConnection.Role.API;
        } else if (path.equals(ws + "/event") && adapter.protocol.version == 11) {
            role = WsConnection.Role.EVENT;
        } else if (path.equals(http)) {
            if (adapter.settings.mode() != Mode.HTTP) {
                answer(ctx, req, HttpResponseStatus.NOT_FOUND, "adapters." + adapter.protocol.platform
                        + ".mode is not \"http\"");
            } else {
                post(ctx, req);
            }
            return true;
        } else {
            return false;
        }
        if (adapter.settings.mode() != Mode.REVERSE_WS) {
            answer(ctx, req, HttpResponseStatus.NOT_FOUND, "adapters." + adapter.protocol.platform
                    + ".mode is not \"reverse-ws\"");
        } else {
            upgrade(ctx, req, role);
        }
        return true;
    }

    private static WsConnection.Role roleOf(String header) {
        return switch (header.toLowerCase(Locale.ROOT)) {
            case "api" -> WsConnection.Role.API;
            case "event" -> WsConnection.Role.EVENT;
            default -> WsConnection.Role.UNIVERSAL;
        };
    }

    /**
     * Whether {@code origin} names the very host and port the upgrade was sent to ({@code host}): a client
     * library that sends its target as the origin (Netty's WebSocket client does), or a page of this server. A
     * page on another site names its own; one whose name was rebound to this server fails the server's Host
     * check first.
     */
    static boolean sameOrigin(String origin, @Nullable String host) {
        if (host == null) {
            return false;
        }
        try {
            java.net.URI u = new java.net.URI(origin.strip());
            String scheme = u.getScheme();
            String authority = u.getRawAuthority();
            return scheme != null && authority != null
                    && (scheme.equalsIgnoreCase("http") || scheme.equalsIgnoreCase("https"))
                    && authority.equalsIgnoreCase(host.strip());
        } catch (java.net.URISyntaxException e) {
            return false;
        }
    }

    private void upgrade(ChannelHandlerContext ctx, FullHttpRequest req, WsConnection.Role role) {
        if (!HttpMethod.GET.equals(req.method())) {
            answer(ctx, req, HttpResponseStatus.METHOD_NOT_ALLOWED, "a WebSocket upgrade is a GET");
            return;
        }
        String origin = req.headers().get(HttpHeaderNames.ORIGIN);
        if (origin != null && !adapter.settings.allowedOrigins().contains(origin)
                && !sameOrigin(origin, req.headers().get(HttpHeaderNames.HOST))) {
            answer(ctx, req, HttpResponseStatus.FORBIDDEN, "a WebSocket upgrade from origin " + origin + " is refused:"
                    + " add it to adapters." + adapter.protocol.platform + ".allowed_origins if a page there may"
                    + " connect");
            return;
        }
        if (!authorized(req)) {
            unauthorized(ctx, req);
            return;
        }
        String selfHint = selfHint(ctx, req);
        if (selfHint == null) {
            return;
        }
        int decoderLimit = (int) Math.min(64L * 1024 * 1024, Math.max(16L * 1024 * 1024,
                4L * adapter.settings.maxFrameBytes()));
        String host = req.headers().get(HttpHeaderNames.HOST, "localhost");
        WebSocketServerHandshakerFactory factory = new WebSocketServerHandshakerFactory("ws://" + host + ws,
                adapter.protocol.version == 12 ? "*" : null, false, decoderLimit);
        WebSocketServerHandshaker handshaker = factory.newHandshaker(req);
        Channel ch = ctx.channel();
        if (handshaker == null) {
            WebSocketServerHandshakerFactory.sendUnsupportedVersionResponse(ch);
            return;
        }
        ChannelPipeline p = ctx.pipeline();
        // the server's request timer does not time a WebSocket; its frames are read as they come (not a
        // request at a time), paused while the connection is unwritable
        for (String name : List.of("timeout", "inorder")) {
            if (p.get(name) != null) {
                p.remove(name);
            }
        }
        WriteLimit.readFreely(ch);
        WsConnection c = adapter.connection(ch, role, selfHint);
        adapter.opened(c); // before the 101 leaves: the bot can be called as soon as the implementation sees it
        try {
            handshaker.handshake(ch, req).addListener((ChannelFutureListener) f -> {
                if (!f.isSuccess()) {
                    f.channel().close();
                }
            });
            p.addLast("onebot", new FrameHandler(c, adapter.sink, adapter.metrics, adapter.settings.maxFrameBytes()));
            p.remove(ctx.handler());
        } catch (RuntimeException e) {
            adapter.sink.closed(c);
            ch.close();
        }
    }

    private boolean authorized(FullHttpRequest req) {
        if (token == null) {
            return true;
        }
        String auth = req.headers().get(HttpHeaderNames.AUTHORIZATION, "");
        String given;
        if (auth.regionMatches(true, 0, "Bearer ", 0, 7)) {
            given = auth.substring(7);
        } else if (auth.regionMatches(true, 0, "Token ", 0, 6)) { // go-cqhttp's form
            given = auth.substring(6);
        } else {
            List<String> q = new QueryStringDecoder(req.uri()).parameters().get("access_token");
            given = q == null || q.isEmpty() ? null : q.get(0);
        }
        return given != null && MessageDigest.isEqual(token, given.getBytes(StandardCharsets.UTF_8));
    }

    private void post(ChannelHandlerContext ctx, FullHttpRequest req) {
        if (!HttpMethod.POST.equals(req.method())) {
            answer(ctx, req, HttpResponseStatus.METHOD_NOT_ALLOWED, "events are POSTed");
            return;
        }
        ByteBuf body = req.content();
        if (adapter.protocol.version == 11 && secret != null && !signed(req.headers().get("X-Signature"), body)) {
            answer(ctx, req, HttpResponseStatus.FORBIDDEN, "X-Signature is missing or is not the HMAC-SHA1 of the body");
            return;
        }
        if (adapter.protocol.version == 12 && !authorized(req)) {
            unauthorized(ctx, req);
            return;
        }
        String selfHint = selfHint(ctx, req);
        if (selfHint == null) {
            return;
        }
        boolean keepAlive = HttpUtil.isKeepAlive(req);
        switch (adapter.posted(body, selfHint, quick -> write(ctx, quick, keepAlive))) {
            case TAKEN -> { }
            case DROPPED -> write(ctx, null, keepAlive); // counted; a retry would not fare better
            case NOT_JSON -> answer(ctx, req, HttpResponseStatus.BAD_REQUEST, "the body is not a JSON event");
        }
    }

    /** {@code X-Self-ID}, trimmed (empty when absent); null, answered 400, when it is longer than an id may be. */
    private static @Nullable String selfHint(ChannelHandlerContext ctx, FullHttpRequest req) {
        String self = req.headers().get("X-Self-ID", "").trim();
        if (self.length() > dev.pulsebus.event.Event.MAX_ID_LENGTH) {
            answer(ctx, req, HttpResponseStatus.BAD_REQUEST, "X-Self-ID is " + self.length()
                    + " characters long, more than " + dev.pulsebus.event.Event.MAX_ID_LENGTH);
            return null;
        }
        return self;
    }

    private boolean signed(@Nullable String signature, ByteBuf body) {
        if (signature == null || !signature.startsWith("sha1=")) {
            return false;
        }
        byte[] expected;
        try {
            Mac mac = Mac.getInstance("HmacSHA1");
            mac.init(secret);
            mac.update(body.nioBuffer());
            expected = mac.doFinal();
        } catch (GeneralSecurityException e) {
            return false;
        }
        byte[] given;
        try {
            given = HexFormat.of().parseHex(signature.substring(5).trim());
        } catch (IllegalArgumentException e) {
            return false;
        }
        return MessageDigest.isEqual(expected, given);
    }

    /** The answer to a posted event: its quick operation, or 204. From any thread. */
    private static void write(ChannelHandlerContext ctx, @Nullable JsonNode quick, boolean keepAlive) {
        FullHttpResponse res;
        if (quick == null) {
            res = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.NO_CONTENT, Unpooled.EMPTY_BUFFER);
        } else {
            byte[] bytes;
            try {
                bytes = Json.MAPPER.writeValueAsBytes(quick);
            } catch (IOException e) {
                bytes = new byte[0];
            }
            res = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.OK, Unpooled.wrappedBuffer(bytes));
            res.headers().set(HttpHeaderNames.CONTENT_TYPE, HttpHeaderValues.APPLICATION_JSON);
        }
        send(ctx, res, keepAlive);
    }

    private static void unauthorized(ChannelHandlerContext ctx, FullHttpRequest req) {
        FullHttpResponse res = error(HttpResponseStatus.UNAUTHORIZED,
                "missing or wrong access token: send Authorization: Bearer <token>");
        res.headers().set(HttpHeaderNames.WWW_AUTHENTICATE, "Bearer");
        send(ctx, res, HttpUtil.isKeepAlive(req));
    }

    private static void answer(ChannelHandlerContext ctx, FullHttpRequest req, HttpResponseStatus status,
                               String message) {
        send(ctx, error(status, message), HttpUtil.isKeepAlive(req));
    }

    private static FullHttpResponse error(HttpResponseStatus status, String message) {
        byte[] body;
        try {
            body = Json.MAPPER.writeValueAsBytes(java.util.Map.of("error", message, "status", status.code()));
        } catch (IOException e) {
            body = new byte[0];
        }
        FullHttpResponse res = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, status, Unpooled.wrappedBuffer(body));
        res.headers().set(HttpHeaderNames.CONTENT_TYPE, "application/json; charset=utf-8");
        return res;
    }

    private static void send(ChannelHandlerContext ctx, FullHttpResponse res, boolean keepAlive) {
        HttpUtil.setContentLength(res, res.content().readableBytes());
        if (keepAlive) {
            HttpUtil.setKeepAlive(res, true);
            ctx.writeAndFlush(res);
        } else {
            res.headers().set(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE);
            ctx.writeAndFlush(res).addListener(ChannelFutureListener.CLOSE);
        }
    }
}
