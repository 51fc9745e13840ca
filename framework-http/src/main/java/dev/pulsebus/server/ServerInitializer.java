package dev.pulsebus.server;

import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelPromise;
import io.netty.channel.socket.SocketChannel;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpMessage;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.codec.http.HttpUtil;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;

/**
 * The server's pipeline, in order: {@link ConnectionLimit} (refuse past {@code max_connections}),
 * {@link RequestTimeout} (close clients that do not finish a request in time), the HTTP codec (request
 * line and header limits), {@link BodyLimit} (aggregates the body, 413 past {@code max_body_bytes}),
 * then the {@link HttpHandler}.
 */
final class ServerInitializer extends ChannelInitializer<SocketChannel> {

    static final int MAX_REQUEST_LINE = 4096;

    private final ServerConfig config;
    private final ConnectionLimit limit;
    private final HttpHandler handler;

    ServerInitializer(ServerConfig config, HttpHandler handler) {
        this.config = config;
        this.limit = new ConnectionLimit(config.maxConnections());
        this.handler = handler;
    }

    ConnectionLimit limit() {
        return limit;
    }

    @Override
    protected void initChannel(SocketChannel ch) {
        ch.pipeline()
                .addLast("limit", limit)
                .addLast("codec", new HttpServerCodec(MAX_REQUEST_LINE, config.maxHeaderBytes(), 8192))
                .addLast("timeout", new RequestTimeout(config.requestTimeoutMs()))
                .addLast("body", new BodyLimit(config.maxBodyBytes()))
                .addLast("handler", handler);
    }

    /**
     * Counts open connections; one past the limit gets a raw 503 and is closed at once, so the others
     * are unaffected.
     */
    @ChannelHandler.Sharable
    static final class ConnectionLimit extends ChannelInboundHandlerAdapter {
        private static final byte[] REFUSAL = ("HTTP/1.1 503 Service Unavailable\r\n"
                + "Content-Type: application/json; charset=utf-8\r\nConnection: close\r\nContent-Length: 59\r\n\r\n"
                + "{\"error\":\"too many connections; try again\",\"status\":503}\n\n\n").getBytes(StandardCharsets.US_ASCII);

        private final int max;
        private final AtomicInteger open = new AtomicInteger();
        final LongAdder refused = new LongAdder();

        ConnectionLimit(int max) {
            this.max = max;
        }

        int open() {
            return open.get();
        }

        @Override
        public void channelActive(ChannelHandlerContext ctx) throws Exception {
            if (open.incrementAndGet() > max) {
                refused.increment();
                ctx.channel().config().setAutoRead(false);
                ctx.writeAndFlush(Unpooled.wrappedBuffer(REFUSAL)).addListener(ChannelFutureListener.CLOSE);
                return;
            }
            super.channelActive(ctx);
        }

        @Override
        public void channelInactive(ChannelHandlerContext ctx) throws Exception {
            open.decrementAndGet();
            super.channelInactive(ctx);
        }
    }

    /**
     * A connection must deliver each complete request within {@code timeoutMs} of being ready for it (on
     * connect, and after each response); otherwise it gets 408 and is closed. A request that is being
     * answered (or a parked poll) is not timed.
     */
    static final class RequestTimeout extends ChannelDuplexHandler {
        private final long timeoutMs;
        private ScheduledFuture<?> timer;

        RequestTimeout(long timeoutMs) {
            this.timeoutMs = timeoutMs;
        }

        @Override
        public void channelActive(ChannelHandlerContext ctx) throws Exception {
            arm(ctx);
            super.channelActive(ctx);
        }

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) throws Exception {
            if (msg instanceof HttpMessage) {
                // Headers are in; the body (if any) follows within the same budget.
                if (msg instanceof FullHttpRequest) {
                    disarm();
                }
            } else if (msg instanceof io.netty.handler.codec.http.LastHttpContent) {
                disarm();
            }
            super.channelRead(ctx, msg);
        }

        @Override
        public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) throws Exception {
            if (msg instanceof FullHttpResponse res && HttpUtil.isKeepAlive(res)) {
                promise.addListener(f -> {
                    if (f.isSuccess() && ctx.channel().isActive()) {
                        arm(ctx);
                    }
                });
            }
            super.write(ctx, msg, promise);
        }

        @Override
        public void channelInactive(ChannelHandlerContext ctx) throws Exception {
            disarm();
            super.channelInactive(ctx);
        }

        private void arm(ChannelHandlerContext ctx) {
            disarm();
            timer = ctx.executor().schedule(() -> {
                timer = null;
                Responses.error(ctx, HttpResponseStatus.REQUEST_TIMEOUT,
                        "no complete request within " + timeoutMs + " ms", false);
            }, timeoutMs, TimeUnit.MILLISECONDS);
        }

        private void disarm() {
            if (timer != null) {
                timer.cancel(false);
                timer = null;
            }
        }
    }

    /** The body aggregator, answering an oversized body with our JSON 413 and closing the connection. */
    static final class BodyLimit extends HttpObjectAggregator {
        BodyLimit(int maxBytes) {
            super(maxBytes);
        }

        @Override
        protected void handleOversizedMessage(ChannelHandlerContext ctx, HttpMessage oversized) {
            Responses.error(ctx, HttpResponseStatus.REQUEST_ENTITY_TOO_LARGE,
                    "request body is over the limit of " + maxContentLength() + " bytes", false);
        }
    }
}
