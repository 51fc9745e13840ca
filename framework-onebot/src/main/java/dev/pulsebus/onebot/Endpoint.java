package dev.pulsebus.onebot;

import com.fasterxml.jackson.databind.JsonNode;
import dev.pulsebus.internal.Json;
import dev.pulsebus.platform.HttpExchange;
import dev.pulsebus.platform.HttpRoutes;
import dev.pulsebus.platform.WebSocketEndpoint;
import dev.pulsebus.platform.WebSocketListener;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.io.IOException;
import java.nio.ByteBuffer;
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
 * mode not configured answers 404. Mounted through the platform SPI's neutral routes; runs on the I/O thread.
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

    /** Mounts its paths on {@code routes}: those of every mode, a mode not configured answering 404. */
    void mount(HttpRoutes routes) {
        routes.webSocket(ws, new Upgrades(null));
        if (adapter.protocol.version == 11) {
            routes.webSocket(ws + "/api", new Upgrades(WsConnection.Role.API));
            routes.webSocket(ws + "/event", new Upgrades(WsConnection.Role.EVENT));
        }
        routes.route(http, http, this::post);
    }

    /** The reverse WebSocket's upgrades on one path, serving {@code role} (null: as {@code X-Client-Role} says). */
    private final class Upgrades implements WebSocketEndpoint {
        private final WsConnection.@Nullable Role role;

        Upgrades(WsConnection.@Nullable Role role) {
            this.role = role;
        }

        @Override
        public @Nullable WebSocketListener accept(HttpExchange upgrade) {
            return Endpoint.this.accept(upgrade, role != null ? role
                    : roleOf(java.util.Objects.requireNonNullElse(upgrade.header("X-Client-Role"), "Universal")));
        }

        @Override
        public int maxMessageBytes() {
            return adapter.settings.maxFrameBytes();
        }

        @Override
        public @Nullable String subprotocols() {
            return adapter.protocol.version == 12 ? "*" : null;
        }
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

    private @Nullable WebSocketListener accept(HttpExchange req, WsConnection.Role role) {
        if (adapter.settings.mode() != Mode.REVERSE_WS) {
            req.error(404, "adapters." + adapter.protocol.platform + ".mode is not \"reverse-ws\"");
            return null;
        }
        String origin = req.header("Origin");
        if (origin != null && !adapter.settings.allowedOrigins().contains(origin)
                && !sameOrigin(origin, req.header("Host"))) {
            req.error(403, "a WebSocket upgrade from origin " + origin + " is refused:"
                    + " add it to adapters." + adapter.protocol.platform + ".allowed_origins if a page there may"
                    + " connect");
            return null;
        }
        if (!authorized(req)) {
            req.error(401, "missing or wrong access token: send Authorization: Bearer <token>");
            return null;
        }
        String selfHint = selfHint(req);
        if (selfHint == null) {
            return null;
        }
        return adapter.listener(role, selfHint);
    }

    private boolean authorized(HttpExchange req) {
        if (token == null) {
            return true;
        }
        String auth = java.util.Objects.requireNonNullElse(req.header("Authorization"), "");
        String given;
        if (auth.regionMatches(true, 0, "Bearer ", 0, 7)) {
            given = auth.substring(7);
        } else if (auth.regionMatches(true, 0, "Token ", 0, 6)) { // go-cqhttp's form
            given = auth.substring(6);
        } else {
            List<String> q = req.query("access_token");
            given = q.isEmpty() ? null : q.get(0);
        }
        return given != null && MessageDigest.isEqual(token, given.getBytes(StandardCharsets.UTF_8));
    }

    private void post(HttpExchange req) {
        if (adapter.settings.mode() != Mode.HTTP) {
            req.error(404, "adapters." + adapter.protocol.platform + ".mode is not \"http\"");
            return;
        }
        if (!req.method().equals("POST")) {
            req.error(405, "events are POSTed");
            return;
        }
        ByteBuffer body = req.body();
        if (adapter.protocol.version == 11 && secret != null && !signed(req.header("X-Signature"), body)) {
            req.error(403, "X-Signature is missing or is not the HMAC-SHA1 of the body");
            return;
        }
        if (adapter.protocol.version == 12 && !authorized(req)) {
            req.error(401, "missing or wrong access token: send Authorization: Bearer <token>");
            return;
        }
        String selfHint = selfHint(req);
        if (selfHint == null) {
            return;
        }
        ByteBuf content = Unpooled.wrappedBuffer(body);
        switch (adapter.posted(content, selfHint, quick -> write(req, quick))) {
            case TAKEN -> { }
            case DROPPED -> write(req, null); // counted; a retry would not fare better
            case NOT_JSON -> req.error(400, "the body is not a JSON event");
        }
    }

    /** {@code X-Self-ID}, trimmed (empty when absent); null, answered 400, when it is longer than an id may be. */
    private static @Nullable String selfHint(HttpExchange req) {
        String self = java.util.Objects.requireNonNullElse(req.header("X-Self-ID"), "").trim();
        if (self.length() > dev.pulsebus.event.Event.MAX_ID_LENGTH) {
            req.error(400, "X-Self-ID is " + self.length() + " characters long, more than "
                    + dev.pulsebus.event.Event.MAX_ID_LENGTH);
            return null;
        }
        return self;
    }

    private boolean signed(@Nullable String signature, ByteBuffer body) {
        if (signature == null || !signature.startsWith("sha1=")) {
            return false;
        }
        byte[] expected;
        try {
            Mac mac = Mac.getInstance("HmacSHA1");
            mac.init(secret);
            mac.update(body.duplicate());
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
    private static void write(HttpExchange req, @Nullable JsonNode quick) {
        if (quick == null) {
            req.respond(204, null, new byte[0]);
            return;
        }
        byte[] bytes;
        try {
            bytes = Json.MAPPER.writeValueAsBytes(quick);
        } catch (IOException e) {
            bytes = new byte[0];
        }
        req.respond(200, "application/json", bytes);
    }
}
