package dev.pulsebus.server;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpResponseStatus;

/**
 * Writes an answer ({@link Responses}) and counts it in {@code pulsebus_http_requests_total}, by
 * {@link Route} and status code; owns the requests' timers ({@link RequestTimers}) too.
 */
final class CountedResponses {

    private final MeterRegistry registry;
    private final Counter[][] counters = new Counter[Route.values().length][600];
    /** The requests' durations by route template ({@code http_server_requests_seconds}). */
    final RequestTimers timers;

    CountedResponses(MeterRegistry registry) {
        this.registry = registry;
        this.timers = new RequestTimers(registry);
    }

    void json(ChannelHandlerContext ctx, Route route, HttpResponseStatus status, ByteBuf body, boolean keepAlive) {
        count(route, status);
        Responses.json(ctx, status, body, keepAlive);
    }

    void error(ChannelHandlerContext ctx, Route route, HttpResponseStatus status, String message, boolean keepAlive) {
        count(route, status);
        Responses.error(ctx, status, message, keepAlive);
    }

    /** A request not read to its end: refused, the connection closed lingeringly (see {@link Responses#refuse}). */
    void refuse(ChannelHandlerContext ctx, HttpResponseStatus status, String message) {
        count(Route.BAD, status);
        Responses.refuse(ctx, status, message);
    }

    /** True when {@code method} is among {@code allowed}; otherwise answers 405 with Allow. */
    boolean allow(ChannelHandlerContext ctx, HttpMethod method, String allowed, Route route, boolean keepAlive) {
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

    @SuppressWarnings("EnumOrdinal") // counters indexed by route: no map lookup per response
    void count(Route route, HttpResponseStatus status) {
        int code = status.code();
        Counter c = code < 600 ? counters[route.ordinal()][code] : null;
        if (c == null) {
            c = registry.counter("pulsebus.http.requests", "route", route.label, "status", Integer.toString(code));
            if (code < 600) {
                counters[route.ordinal()][code] = c; // a benign race: the registry hands out one counter per id
            }
        }
        c.increment();
    }
}
