package dev.pulsebus.server;

import dev.pulsebus.netty.ChannelSession;
import dev.pulsebus.netty.WebSocketMessages;
import dev.pulsebus.netty.WriteLimit;
import dev.pulsebus.platform.HttpExchange;
import dev.pulsebus.platform.HttpRoute;
import dev.pulsebus.platform.HttpRoutes;
import dev.pulsebus.platform.WebSocketEndpoint;
import dev.pulsebus.platform.WebSocketListener;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPipeline;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.QueryStringDecoder;
import io.netty.handler.codec.http.websocketx.WebSocketServerHandshaker;
import io.netty.handler.codec.http.websocketx.WebSocketServerHandshakerFactory;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import org.jspecify.annotations.Nullable;

/**
 * The platforms' routes and WebSocket endpoints on the server's port ({@link HttpRoutes}, the neutral mount of
 * the platform SPI): exact paths, mounted while the server starts, looked up per request (a map read). A
 * request to one passes the server's checks first (Host, a browser's cross-site write, connection caps,
 * request timeout) and the body limit of the platform that mounted it; the platform checks its own token.
 * Thread-safe.
 */
final class Mounts {

    /** One mounted path: a route or a WebSocket endpoint, and the body limit its platform asked for (0: the server's). */
    private record Mount(String path, String template, @Nullable HttpRoute route, @Nullable WebSocketEndpoint ws,
                         int maxBodyBytes) {
    }

    private final Map<String, Mount> byPath = new ConcurrentHashMap<>();
    /** The mounts whose platform asked for a body limit of its own, for the per-request check. */
    private volatile Mount[] ownLimits = new Mount[0];
    private final CountedResponses out;

    Mounts(CountedResponses out) {
        this.out = out;
    }

    /** The mounts of one platform, whose routes take bodies of up to {@code maxBodyBytes} (0: the server's limit). */
    HttpRoutes forPlatform(int maxBodyBytes) {
        return new HttpRoutes() {
            @Override
            public boolean available() {
                return true;
            }

            @Override
            public void route(String path, String template, HttpRoute route) {
                mount(new Mount(strip(path), template, route, null, maxBodyBytes));
            }

            @Override
            public void webSocket(String path, WebSocketEndpoint endpoint) {
                String p = strip(path);
                mount(new Mount(p, p, null, endpoint, maxBodyBytes));
            }
        };
    }

    private synchronized void mount(Mount m) { // at start only
        if (!m.path.startsWith("/") || m.path.startsWith("/api/") || m.path.startsWith("/health")
                || m.path.equals("/metrics") || m.path.startsWith("/modules/") || m.path.startsWith("/console")) {
            throw new IllegalStateException("a platform cannot mount " + m.path + ": the server serves it");
        }
        if (byPath.putIfAbsent(m.path, m) != null) {
            throw new IllegalStateException("two platforms mount " + m.path);
        }
        if (m.maxBodyBytes > 0) {
            Mount[] before = ownLimits;
            Mount[] after = java.util.Arrays.copyOf(before, before.length + 1);
            after[before.length] = m;
            ownLimits = after;
        }
    }

    private static String strip(String path) {
        return path.length() > 1 && path.endsWith("/") ? path.substring(0, path.length() - 1) : path;
    }

    /** The largest body any mount takes, 0 when none asked for more than the server's limit. */
    int maxBodyBytes() {
        int max = 0;
        for (Mount m : ownLimits) {
            max = Math.max(max, m.maxBodyBytes);
        }
        return max;
    }

    /**
     * The body limit of the request to {@code uri}: its mount's, else {@code dflt}. Compares the mounts that take
     * more than {@code dflt} (few: a OneBot intake) with the URI in place, allocating nothing per request.
     */
    int maxBodyBytes(String uri, int dflt) {
        for (Mount m : ownLimits) {
            if (m.maxBodyBytes > dflt && uri.startsWith(m.path)) {
                int end = m.path.length();
                if (uri.length() == end || uri.charAt(end) == '?'
                        || (uri.charAt(end) == '/' && (uri.length() == end + 1 || uri.charAt(end + 1) == '?'))) {
                    return m.maxBodyBytes;
                }
            }
        }
        return dflt;
    }

    /** Answers a request to a mounted path; false when {@code path} is none. I/O thread. */
    boolean handle(ChannelHandlerContext ctx, FullHttpRequest req, QueryStringDecoder uri, String path,
                   boolean keepAlive) {
        Mount m = byPath.get(strip(path));
        if (m == null) {
            return false;
        }
        RequestTimers.route(ctx, out.timers.route(m.template));
        Exchange exchange = new Exchange(ctx, req, uri, m.path, keepAlive);
        if (m.route != null) {
            m.route.handle(exchange);
        } else {
            upgrade(ctx, req, m, exchange);
        }
        return true;
    }

    private void upgrade(ChannelHandlerContext ctx, FullHttpRequest req, Mount m, Exchange exchange) {
        WebSocketEndpoint endpoint = java.util.Objects.requireNonNull(m.ws);
        if (!HttpMethod.GET.equals(req.method())) {
            exchange.error(405, "a WebSocket upgrade is a GET");
            return;
        }
        WebSocketListener listener = endpoint.accept(exchange);
        if (listener == null || exchange.answered.get()) {
            return;
        }
        int maxMessage = endpoint.maxMessageBytes();
        int decoderLimit = (int) Math.min(64L * 1024 * 1024, Math.max(16L * 1024 * 1024, 4L * maxMessage));
        String host = req.headers().get(HttpHeaderNames.HOST, "localhost");
        WebSocketServerHandshakerFactory factory = new WebSocketServerHandshakerFactory("ws://" + host + m.path,
                endpoint.subprotocols(), false, decoderLimit);
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
        ChannelSession session = new ChannelSession(ch);
        listener.opened(session); // before the 101 leaves: the peer can be sent to as soon as it sees it
        try {
            handshaker.handshake(ch, req).addListener((ChannelFutureListener) f -> {
                if (!f.isSuccess()) {
                    f.channel().close();
                }
            });
            p.addLast("websocket", new WebSocketMessages(session, listener, maxMessage));
            p.remove(ctx.handler());
        } catch (RuntimeException e) {
            listener.closed(session);
            ch.close();
        }
    }

    /** One request to a mounted path, answered once. */
    private final class Exchange implements HttpExchange {
        private final ChannelHandlerContext ctx;
        private final FullHttpRequest req;
        private final QueryStringDecoder uri;
        private final String path;
        private final boolean keepAlive;
        final AtomicBoolean answered = new AtomicBoolean();

        Exchange(ChannelHandlerContext ctx, FullHttpRequest req, QueryStringDecoder uri, String path,
                 boolean keepAlive) {
            this.ctx = ctx;
            this.req = req;
            this.uri = uri;
            this.path = path;
            this.keepAlive = keepAlive;
        }

        @Override
        public String method() {
            return req.method().name();
        }

        @Override
        public String path() {
            return path;
        }

        @Override
        public List<String> query(String name) {
            List<String> v = uri.parameters().get(name);
            return v == null ? List.of() : v;
        }

        @Override
        public @Nullable String header(String name) {
            return req.headers().get(name);
        }

        @Override
        public ByteBuffer body() {
            return req.content().nioBuffer();
        }

        @Override
        public String remoteAddress() {
            return String.valueOf(ctx.channel().remoteAddress());
        }

        @Override
        public void respond(int status, @Nullable String contentType, byte[] body) {
            if (!answered.compareAndSet(false, true)) {
                throw new IllegalStateException("answered already");
            }
            HttpResponseStatus s = HttpResponseStatus.valueOf(status);
            out.count(Route.PLATFORM, s);
            Responses.write(ctx, s, contentType, Unpooled.wrappedBuffer(body), keepAlive);
        }

        @Override
        public void error(int status, String message) {
            if (!answered.compareAndSet(false, true)) {
                throw new IllegalStateException("answered already");
            }
            HttpResponseStatus s = HttpResponseStatus.valueOf(status);
            out.count(Route.PLATFORM, s);
            if (status == 401) { // RFC 6750, 3: a 401 names the scheme it wants
                Responses.error(ctx, s, message, keepAlive, HttpHeaderNames.WWW_AUTHENTICATE, "Bearer");
            } else {
                Responses.error(ctx, s, message, keepAlive);
            }
        }
    }
}
