package dev.pulsebus.server;

import dev.pulsebus.adapter.WriteLimit;
import dev.pulsebus.onebot.OneBotSettings;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelPipeline;
import io.netty.channel.ChannelPromise;
import io.netty.channel.socket.DuplexChannel;
import io.netty.channel.socket.SocketChannel;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpMessage;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.util.ReferenceCountUtil;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;

/**
 * The server's pipeline, in order: {@link WriteLimit} (watermarks: reading paused while the connection is
 * unwritable, closed past {@code max_pending_write_bytes}), {@link ConnectionLimit} (refuse past
 * {@code max_connections}), {@link Linger} (close without a reset after a refusal), the HTTP codec (request
 * line and header limits), {@link InOrder} (one request at a time, answered in order), {@link RequestTimers.Timing} (times each request), {@link RequestTimeout} (close clients that do not finish a request in time), {@link BodyLimit}
 * (aggregates the body, 413 past {@code max_body_bytes}; {@code max_frame_bytes} on OneBot's paths), then the
 * {@link HttpHandler}. A OneBot reverse WebSocket replaces the HTTP handlers after its upgrade.
 */
final class ServerInitializer extends ChannelInitializer<SocketChannel> {

    static final int MAX_REQUEST_LINE = 4096;

    private final ServerConfig config;
    private final ConnectionLimit limit;
    private final HttpHandler handler;
    private final RequestTimers timers;
    /** The backpressure counts of every connection accepted. */
    final WriteLimit.Counts writes = new WriteLimit.Counts();

    /** The largest body a OneBot adapter takes on its paths ({@code max_frame_bytes}); 0 when none is enabled. */
    private final int onebotBodyBytes;

    ServerInitializer(ServerConfig config, HttpHandler handler, RequestTimers timers) {
        this.timers = timers;
        this.config = config;
        this.onebotBodyBytes = config.onebot().stream().filter(OneBotSettings::enabled)
                .mapToInt(OneBotSettings::maxFrameBytes).max().orElse(0);
        this.limit = new ConnectionLimit(config.maxConnections());
        this.handler = handler;
    }

    ConnectionLimit limit() {
        return limit;
    }

    @Override
    protected void initChannel(SocketChannel ch) {
        ch.pipeline()
                .addLast("backpressure", new WriteLimit(config.maxPendingWriteBytes(), writes))
                .addLast("limit", limit)
                .addLast("linger", new Linger())
                .addLast("codec", new HttpServerCodec(MAX_REQUEST_LINE, config.maxHeaderBytes(), 8192))
                .addLast("inorder", new InOrder())
                .addLast("timing", timers.timing())
                .addLast("timeout", new RequestTimeout(config.requestTimeoutMs()))
                .addLast("body", new BodyLimit(config.maxBodyBytes()))
                .addLast("handler", handler);
        if (onebotBodyBytes > config.maxBodyBytes()) {
            ch.pipeline().addBefore("body", "onebot-body", new OneBotBodyLimit(onebotBodyBytes));
        }
    }

    /**
     * Counts open connections; one past the limit gets a raw 503 and is closed at once, so the others
     * are unaffected.
     */
    @ChannelHandler.Sharable
    static final class ConnectionLimit extends ChannelInboundHandlerAdapter {
        @SuppressWarnings("StringConcatToTextBlock") // CRLF line ends, byte for byte
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
     * Closes a connection after a refusal ({@link Responses#refuse}) the way HTTP servers do, lingeringly:
     * a client that sends a whole oversized request before it reads would otherwise lose the answer, as
     * closing a socket with input unread makes the kernel send a reset, and the client's kernel then
     * discards what it had received. Once the refusal is written, the handlers that decode requests are
     * removed (nothing more is parsed or handled), the output is shut (the client sees the answer end),
     * and input is read and discarded until the client closes its side, {@link #MAX_BYTES} have come, or
     * {@link #MAX_MILLIS} have passed; then the connection is closed. Event-loop confined.
     */
    static final class Linger extends ChannelInboundHandlerAdapter {
        static final long MAX_MILLIS = 2000;
        static final long MAX_BYTES = 1024 * 1024;
        /** The handlers that turn bytes into requests, removed while lingering (the handler last, so
         *  that bytes the codec still held are passed to it and dropped, not parsed). */
        private static final String[] DECODING = {"timeout", "body", "codec"};

        /** Added to a refusal's write: lingers once it is written, closes at once if it could not be. */
        static final ChannelFutureListener AFTER_REFUSAL = f -> {
            Linger linger = f.channel().pipeline().get(Linger.class);
            if (linger == null || !f.isSuccess()) {
                f.channel().close();
            } else {
                linger.start();
            }
        };

        @SuppressWarnings("NullAway.Init") // set by handlerAdded, before any other call
        private ChannelHandlerContext ctx;
        private boolean lingering;
        private long discarded;

        @Override
        public void handlerAdded(ChannelHandlerContext ctx) {
            this.ctx = ctx;
        }

        private void start() {
            if (lingering) {
                return;
            }
            lingering = true;
            ChannelPipeline pipeline = ctx.pipeline();
            for (String name : DECODING) {
                if (pipeline.context(name) != null) {
                    pipeline.remove(name);
                }
            }
            if (!(ctx.channel() instanceof DuplexChannel duplex) || duplex.isInputShutdown()) {
                ctx.close(); // nothing more can come
                return;
            }
            duplex.shutdownOutput();
            ctx.channel().config().setAutoRead(true); // read to the end, not a request at a time (InOrder)
            ctx.executor().schedule(() -> ctx.close(), MAX_MILLIS, TimeUnit.MILLISECONDS);
        }

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            if (!lingering) {
                ctx.fireChannelRead(msg);
                return;
            }
            if (msg instanceof ByteBuf bytes) {
                discarded += bytes.readableBytes();
            }
            ReferenceCountUtil.release(msg);
            if (discarded > MAX_BYTES) {
                ctx.close();
            }
        }
    }

    /**
     * A connection must deliver each complete request within {@code timeoutMs} of being ready for it (on
     * connect, and after each response); otherwise it gets 408 and is closed. A request that is being
     * answered (or a parked poll) is not timed.
     */
    static final class RequestTimeout extends ChannelDuplexHandler {
        private final long timeoutNanos;
        /** When the request being waited for is due (0: none is timed now). Event-loop confined. */
        private long deadline;
        /** At most one timer per connection: it re-arms itself for a later deadline instead of being
         *  cancelled and replaced on every request (the IdleStateHandler way). */
        private boolean timerPending;

        RequestTimeout(long timeoutMs) {
            this.timeoutNanos = TimeUnit.MILLISECONDS.toNanos(timeoutMs);
        }

        @Override
        public void channelActive(ChannelHandlerContext ctx) throws Exception {
            arm(ctx);
            super.channelActive(ctx);
        }

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) throws Exception {
            if (msg instanceof FullHttpRequest || msg instanceof io.netty.handler.codec.http.LastHttpContent) {
                deadline = 0; // the request is complete: answering it (or a parked poll) is not timed
            }
            super.channelRead(ctx, msg);
        }

        @Override
        public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) throws Exception {
            if (msg instanceof FullHttpResponse res && HttpUtil.isKeepAlive(res)) {
                arm(ctx); // the next request is due within the timeout
            }
            super.write(ctx, msg, promise);
        }

        private void arm(ChannelHandlerContext ctx) {
            deadline = System.nanoTime() + timeoutNanos;
            if (!timerPending) {
                timerPending = true;
                ctx.executor().schedule(() -> fire(ctx), timeoutNanos, TimeUnit.NANOSECONDS);
            }
        }

        private void fire(ChannelHandlerContext ctx) {
            timerPending = false;
            if (deadline == 0 || !ctx.channel().isActive() || ctx.isRemoved()) { // removed: lingering after a refusal
                return;
            }
            long left = deadline - System.nanoTime();
            if (left > 0) {
                timerPending = true;
                ctx.executor().schedule(() -> fire(ctx), left, TimeUnit.NANOSECONDS);
                return;
            }
            deadline = 0;
            Responses.refuse(ctx, HttpResponseStatus.REQUEST_TIMEOUT,
                    "no complete request within " + TimeUnit.NANOSECONDS.toMillis(timeoutNanos) + " ms");
        }
    }

    /**
     * Events a OneBot implementation posts to {@code /onebot/...} may be as large as its
     * {@code max_frame_bytes} (1 MiB), past the chat API's {@code max_body_bytes}: on the first such request
     * the connection's body limit becomes that (an implementation posts on connections of its own).
     */
    static final class OneBotBodyLimit extends ChannelInboundHandlerAdapter {
        private final int maxBytes;

        OneBotBodyLimit(int maxBytes) {
            this.maxBytes = maxBytes;
        }

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            if (msg instanceof io.netty.handler.codec.http.HttpRequest req && req.uri().startsWith("/onebot/")) {
                ctx.pipeline().replace("body", "body", new BodyLimit(maxBytes));
                ctx.pipeline().remove(this);
            }
            ctx.fireChannelRead(msg);
        }
    }

    /** The body aggregator, answering an oversized body with our JSON 413 and closing the connection. */
    static final class BodyLimit extends HttpObjectAggregator {
        BodyLimit(int maxBytes) {
            super(maxBytes);
        }

        @Override
        protected void handleOversizedMessage(ChannelHandlerContext ctx, HttpMessage oversized) {
            Responses.refuse(ctx, HttpResponseStatus.REQUEST_ENTITY_TOO_LARGE,
                    "request body is over the limit of " + maxContentLength() + " bytes");
        }
    }
}
