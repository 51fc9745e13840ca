package dev.pulsebus.server;

import dev.pulsebus.config.Secret;
import dev.pulsebus.module.HttpRoute;
import dev.pulsebus.module.Routes;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
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
import java.nio.charset.StandardCharsets;
import dev.pulsebus.config.Secret;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ExecutorService;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Routes requests: {@code /health}, {@code /metrics}, the chat API ({@link ChatApi}), the platforms' mounted
 * paths and WebSocket endpoints ({@link Mounts}: a OneBot intake, a Telegram webhook), modules' routes, and the browser
 * console's page ({@link ConsoleAssets}) and admin API ({@link AdminApi}).
 * Everything that may wait (storage, metrics scrape, health ping) runs on a virtual
 * thread of {@code work}; the I/O thread only parses, checks and writes. Every error is JSON
 * {@code {"error": "...", "status": n}}.
 */
@ChannelHandler.Sharable
final class HttpHandler extends SimpleChannelInboundHandler<FullHttpRequest> {

    private static final Logger LOG = LoggerFactory.getLogger(HttpHandler.class);
    private static final String OPENMETRICS = "application/openmetrics-text";
    private static final String OPENMETRICS_TYPE = "application/openmetrics-text; version=1.0.0; charset=utf-8";
    private static final String PROMETHEUS_TYPE = "text/plain; version=0.0.4; charset=utf-8";

    /** What /health reports: its status code and body, computed on a virtual thread. */
    @SuppressWarnings("ArrayRecordComponent") // bytes written as they are; never compared
    record Health(HttpResponseStatus status, byte[] body) {
    }

    /**
     * /health's answer, with the failed components' error text only for a client the token admits; and
     * the orchestrator's two probes.
     */
    interface HealthCheck {
        Health answer(boolean withError);

        /** /health/live: 200 while the process serves (its event loops run), else 503. */
        Health live();

        /** /health/ready: 200 while it can take traffic (storage up, not shutting down), else 503. */
        Health ready();
    }

    private final ServerConfig config;
    private final ChatApi chat;
    private final CountedResponses out;
    private final ExecutorService work;
    private final @Nullable PrometheusMeterRegistry prometheus;
    private final Runnable beforeScrape; // waits for the JVM meters, bound once the server listens
    private final HealthCheck health;
    private final Routes routes;
    private final Mounts mounts;
    private final byte @Nullable [] token;
    /** What the admin API takes: {@code server.admin_token}, else {@code server.token}; null: neither is set. */
    private final byte @Nullable [] adminToken;
    private final RequestGuard guard;
    private final AdminApi admin;
    private final ConsoleAssets console;

    HttpHandler(ServerConfig config, ChatApi chat, CountedResponses out, ExecutorService work,
                @Nullable PrometheusMeterRegistry prometheus, Runnable beforeScrape, HealthCheck health, Routes routes,
                Mounts mounts, AdminApi admin) {
        super(true);
        this.config = config;
        this.chat = chat;
        this.out = out;
        this.work = work;
        this.prometheus = prometheus;
        this.beforeScrape = beforeScrape;
        this.health = health;
        this.routes = routes;
        this.mounts = mounts;
        this.token = config.listen().token().isEmpty() ? null : config.listen().token().reveal().getBytes(StandardCharsets.UTF_8);
        Secret adminToken = config.listen().adminToken().isEmpty() ? config.listen().token() : config.listen().adminToken();
        this.adminToken = adminToken.isEmpty() ? null : adminToken.reveal().getBytes(StandardCharsets.UTF_8);
        this.guard = new RequestGuard(config);
        this.admin = admin;
        this.console = new ConsoleAssets(out);
    }

    @Override
    @SuppressWarnings("ReferenceEquality") // the codec hands out its cached HttpVersion constants
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
        RequestGuard.Refusal refusal = guard.check(ctx, req);
        if (refusal != null) {
            out.error(ctx, Route.BAD, refusal.status(), refusal.message(), HttpUtil.isKeepAlive(req));
            return;
        }
        QueryStringDecoder uri = new QueryStringDecoder(req.uri());
        String path = uri.path();
        boolean probe = path.equals("/health/live") || path.equals("/health/ready");
        boolean probeOnly = ServerInitializer.ConnectionLimit.probeOnly(ctx); // past a connection limit
        if (probeOnly && !probe) {
            refuse(ctx, HttpResponseStatus.SERVICE_UNAVAILABLE, ServerInitializer.ConnectionLimit.TOO_MANY);
            return;
        }
        boolean keepAlive = HttpUtil.isKeepAlive(req) && !probeOnly; // a probe slot is given back at once
        HttpMethod method = req.method();
        RequestTimers timers = out.timers;
        if (probe) {
            RequestTimers.route(ctx, path.endsWith("live") ? timers.live : timers.ready);
            if (out.allow(ctx, method, "GET", Route.HEALTH, keepAlive)) {
                Health h = path.endsWith("live") ? health.live() : health.ready(); // field reads only
                out.json(ctx, Route.HEALTH, h.status(), Unpooled.wrappedBuffer(h.body()), keepAlive);
            }
            return;
        }
        if (path.equals("/health")) {
            RequestTimers.route(ctx, timers.health);
            if (out.allow(ctx, method, "GET", Route.HEALTH, keepAlive)) {
                Health h = health.answer(admitted(req) || adminAdmitted(req)); // field reads only: answered on the I/O thread
                out.json(ctx, Route.HEALTH, h.status(), Unpooled.wrappedBuffer(h.body()), keepAlive);
            }
            return;
        }
        if (path.equals("/metrics")) {
            RequestTimers.route(ctx, timers.metrics);
            if (prometheus == null) {
                out.error(ctx, Route.METRICS, HttpResponseStatus.NOT_FOUND, "metrics are turned off (metrics.enabled)", keepAlive);
            } else if (out.allow(ctx, method, "GET", Route.METRICS, keepAlive)) {
                String accept = req.headers().get(HttpHeaderNames.ACCEPT, "");
                work.execute(() -> scrape(ctx, accept.contains(OPENMETRICS), keepAlive));
            }
            return;
        }
        if (AdminApi.serves(path)) { // before /api/: its own answers to a missing token (no-store)
            RequestTimers.route(ctx, timers.admin);
            admin.handle(ctx, req, path, adminAdmitted(req), keepAlive);
            return;
        }
        if (path.startsWith("/api/")) {
            if (authorized(ctx, req)) {
                chat.handle(ctx, req, uri, path, keepAlive);
            }
            return;
        }
        if (mounts.handle(ctx, req, uri, path, keepAlive)) {
            return; // a platform's: its own token or signature, its answer
        }
        if (path.startsWith("/modules/")) {
            if (authorized(ctx, req)) {
                module(ctx, req, uri, path, keepAlive);
            }
            return;
        }
        if (ConsoleAssets.serves(path)) {
            RequestTimers.route(ctx, path.equals("/") ? timers.root : timers.console);
            console.answer(ctx, method, path, keepAlive);
            return;
        }
        RequestTimers.route(ctx, timers.unknown);
        out.error(ctx, Route.UNKNOWN, HttpResponseStatus.NOT_FOUND, "no such path: " + path, keepAlive);
    }

    /** A module's route, run on a virtual thread (module code may block). */
    private void module(ChannelHandlerContext ctx, FullHttpRequest req, QueryStringDecoder uri, String path,
                        boolean keepAlive) {
        HttpRoute route = routes.find(req.method().name(), path);
        if (route == null) {
            String allowed = routes.allowed(path);
            if (allowed != null) {
                RequestTimers.route(ctx, out.timers.route(path)); // a registered path: bounded
                if (out.allow(ctx, req.method(), allowed, Route.MODULE, keepAlive)) { // not among them: 405 with Allow
                    // among them after all: a module (re)loaded this route since the lookup above
                    out.error(ctx, Route.MODULE, HttpResponseStatus.SERVICE_UNAVAILABLE,
                            "the route is being reloaded; try again", keepAlive);
                }
            } else {
                out.error(ctx, Route.UNKNOWN, HttpResponseStatus.NOT_FOUND, "no such path: " + path, keepAlive);
            }
            return;
        }
        RequestTimers.route(ctx, out.timers.route(path)); // a registered path: bounded
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
                out.count(Route.MODULE, status);
                Responses.write(ctx, status, reply.contentType(), Unpooled.wrappedBuffer(body), keepAlive);
            } catch (Throwable e) { // whatever the module did, the request gets an answer
                LOG.warn("Route {} {} failed: {}", request.method(), path, e.toString());
                out.error(ctx, Route.MODULE, HttpResponseStatus.INTERNAL_SERVER_ERROR, "the module failed: " + e.getMessage(),
                        keepAlive);
            }
        });
    }

    /** True when no token is set or the request carries it; otherwise answers 401. */
    private boolean authorized(ChannelHandlerContext ctx, FullHttpRequest req) {
        if (admitted(req)) {
            return true;
        }
        out.count(Route.API, HttpResponseStatus.UNAUTHORIZED);
        Responses.error(ctx, HttpResponseStatus.UNAUTHORIZED, "missing or wrong token: send Authorization: Bearer <token>",
                HttpUtil.isKeepAlive(req), HttpHeaderNames.WWW_AUTHENTICATE, "Bearer");
        return false;
    }

    /** True when no token is set or the request carries it (answers nothing). */
    private boolean admitted(FullHttpRequest req) {
        return token == null || RequestGuard.bearer(req.headers().get(HttpHeaderNames.AUTHORIZATION), token);
    }

    /** True when no admin token is set (then {@link AdminApi} admits loopback only) or the request carries it. */
    private boolean adminAdmitted(FullHttpRequest req) {
        return adminToken == null || RequestGuard.bearer(req.headers().get(HttpHeaderNames.AUTHORIZATION), adminToken);
    }

    private void scrape(ChannelHandlerContext ctx, boolean openMetrics, boolean keepAlive) {
        String type = openMetrics ? OPENMETRICS_TYPE : PROMETHEUS_TYPE;
        beforeScrape.run();
        byte[] text = Objects.requireNonNull(prometheus, "routed here only with metrics on").scrape(type).getBytes(StandardCharsets.UTF_8);
        out.count(Route.METRICS, HttpResponseStatus.OK);
        Responses.write(ctx, HttpResponseStatus.OK, type, Unpooled.wrappedBuffer(text), keepAlive);
    }

    private void badRequest(ChannelHandlerContext ctx, Throwable cause) {
        if (cause instanceof TooLongHttpHeaderException) {
            refuse(ctx, HttpResponseStatus.REQUEST_HEADER_FIELDS_TOO_LARGE,
                    "request headers are over the limit of " + config.listen().maxHeaderBytes() + " bytes");
        } else if (cause instanceof TooLongHttpLineException) {
            refuse(ctx, HttpResponseStatus.REQUEST_URI_TOO_LONG,
                    "request line is over the limit of " + ServerInitializer.MAX_REQUEST_LINE + " bytes");
        } else {
            refuse(ctx, HttpResponseStatus.BAD_REQUEST, "malformed request: " + cause.getMessage());
        }
    }

    private void refuse(ChannelHandlerContext ctx, HttpResponseStatus status, String message) {
        out.refuse(ctx, status, message);
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        LOG.debug("Connection {} failed: {}", ctx.channel().remoteAddress(), cause.toString());
        ctx.close();
    }
}
