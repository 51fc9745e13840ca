package dev.pulsebus.server;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPromise;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.util.AttributeKey;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;

/**
 * {@code http_server_requests_seconds{method,route,status}}: every request the server answers, timed from its
 * head being read to its response being written, with the fixed buckets of {@link SloBuckets}. {@code route} is
 * a bounded template, never the raw path: {@code /api/rooms/{room}/messages}, {@code /health}, a platform's mounted path as it
 * named it ({@code /telegram/{bot}/webhook}), a module's route as it registered it, and {@code UNKNOWN} for a path no
 * route serves (404) or a request refused before it was routed (malformed, oversized, missing token).
 * {@code method} is one of the seven common methods or {@code OTHER}.
 *
 * <p>The router names the route on the connection's I/O thread ({@link #route}); the connection's
 * {@link Timing} records when the response passes it. A timer is made once per route, method and status and
 * then found by array index: recording takes no lock, builds no string and allocates nothing. At most
 * {@link #MAX_ROUTES} routes are kept (module routes come and go with reloads); past that, new ones are
 * recorded as {@code UNKNOWN}. Pipelined requests reach it one at a time ({@link InOrder}): each is timed from
 * when it is taken up.
 */
final class RequestTimers {

    static final int MAX_ROUTES = 256;
    private static final String[] METHODS = {"GET", "POST", "PUT", "DELETE", "PATCH", "HEAD", "OPTIONS", "OTHER"};
    private static final AttributeKey<Timing> KEY = AttributeKey.valueOf(Timing.class, "timing");

    private final MeterRegistry registry;
    private final ConcurrentHashMap<String, RouteTimers> routes = new ConcurrentHashMap<>();
    final RouteTimers unknown;
    final RouteTimers health;
    final RouteTimers live;
    final RouteTimers ready;
    final RouteTimers metrics;
    final RouteTimers messages;
    final RouteTimers poll;
    final RouteTimers admin;
    final RouteTimers console;
    final RouteTimers root;

    RequestTimers(MeterRegistry registry) {
        this.registry = registry;
        this.unknown = new RouteTimers("UNKNOWN");
        routes.put(unknown.template, unknown);
        this.health = route("/health");
        this.live = route("/health/live");
        this.ready = route("/health/ready");
        this.metrics = route("/metrics");
        this.messages = route("/api/rooms/{room}/messages");
        this.poll = route("/api/rooms/{room}/poll");
        this.admin = route("/api/admin/**");
        this.console = route("/console/{file}");
        this.root = route("/");
    }

    /** The timers of {@code template}, a bounded route template; {@link #unknown}'s once {@link #MAX_ROUTES} are kept. */
    RouteTimers route(String template) {
        RouteTimers r = routes.get(template);
        if (r != null) {
            return r;
        }
        if (routes.size() >= MAX_ROUTES) {
            return unknown;
        }
        return routes.computeIfAbsent(template, RouteTimers::new);
    }

    /** A new connection's timing handler, for the pipeline right after the HTTP codec. */
    Timing timing() {
        return new Timing();
    }

    /** Names the route of the request being answered on {@code ctx}'s connection. I/O thread only. */
    static void route(ChannelHandlerContext ctx, RouteTimers route) {
        Timing t = ctx.channel().attr(KEY).get();
        if (t != null) {
            t.route = route;
        }
    }

    private static int method(HttpMethod m) {
        return switch (m.name()) {
            case "GET" -> 0;
            case "POST" -> 1;
            case "PUT" -> 2;
            case "DELETE" -> 3;
            case "PATCH" -> 4;
            case "HEAD" -> 5;
            case "OPTIONS" -> 6;
            default -> 7;
        };
    }

    /** One route's timers, by method and status code, made on first use. */
    final class RouteTimers {
        final String template;
        private final @Nullable Timer[][] byMethod = new Timer[METHODS.length][];

        RouteTimers(String template) {
            this.template = template;
        }

        void record(int method, int status, long nanos) {
            if (status < 100 || status > 599) {
                return;
            }
            @Nullable Timer[] byStatus = byMethod[method];
            if (byStatus == null) {
                byStatus = new Timer[600];
                byMethod[method] = byStatus; // a benign race: a timer lost here is found again in the registry
            }
            Timer timer = byStatus[status];
            if (timer == null) {
                timer = Timer.builder("http.server.requests")
                        .description("HTTP requests answered, from the request's head read to the response written")
                        .tag("method", METHODS[method]).tag("route", template).tag("status", Integer.toString(status))
                        .register(registry);
                byStatus[status] = timer;
            }
            timer.record(nanos, TimeUnit.NANOSECONDS);
        }
    }

    /**
     * Times the requests of one connection: started when a request's head is read, recorded when its response
     * is written (an interim {@code 100 Continue} is not an answer). Event-loop confined. After a {@code 101}
     * (a WebSocket upgrade) it leaves the pipeline: frames are not requests.
     */
    final class Timing extends ChannelDuplexHandler {
        private long started;
        private int method;
        private RouteTimers route = unknown;

        @Override
        public void handlerAdded(ChannelHandlerContext ctx) {
            ctx.channel().attr(KEY).set(this);
        }

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            if (msg instanceof HttpRequest req) {
                started = System.nanoTime();
                method = method(req.method());
                route = unknown;
            }
            ctx.fireChannelRead(msg);
        }

        @Override
        public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
            int status = msg instanceof HttpResponse res ? res.status().code() : 0;
            boolean upgraded = status == 101;
            if (started != 0 && (status >= 200 || upgraded)) {
                route.record(method, status, System.nanoTime() - started);
                started = 0;
            }
            ctx.write(msg, promise);
            if (upgraded) {
                ctx.channel().attr(KEY).set(null);
                ctx.pipeline().remove(this);
            }
        }
    }
}
