package dev.pulsebus.server;

import dev.pulsebus.netty.WriteLimit;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
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
import io.netty.util.AttributeKey;
import io.netty.util.ReferenceCountUtil;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;
import org.jspecify.annotations.Nullable;

/**
 * The server's pipeline, in order: {@link WriteLimit} (watermarks: reading paused while the connection is
 * unwritable, closed past {@code max_pending_write_bytes}), {@link ConnectionLimit} (refuse past
 * {@code max_connections} or {@code max_connections_per_client}, a few slots kept for health probes),
 * {@link Linger} (close without a reset after a refusal), the HTTP codec (request line and header limits),
 * {@link InOrder} (one request at a time, answered in order), {@link RequestTimers.Timing} (times each request), {@link RequestTimeout} (close clients that do not finish a request in time), {@link BodyLimit}
 * (aggregates the body, 413 past {@code max_body_bytes}, or a platform's own limit on its paths), then the
 * {@link HttpHandler}. A platform's WebSocket ({@link Mounts}) replaces the HTTP handlers after its upgrade.
 */
final class ServerInitializer extends ChannelInitializer<SocketChannel> {

    static final int MAX_REQUEST_LINE = 4096;

    private final ServerConfig config;
    private final ConnectionLimit limit;
    private final HttpHandler handler;
    private final RequestTimers timers;
    /** The backpressure counts of every connection accepted. */
    final WriteLimit.Counts writes = new WriteLimit.Counts();

    /** The platforms' mounted paths, some of which take larger bodies than the server's limit. */
    private final Mounts mounts;
    /** Whether any mount takes larger bodies than {@code max_body_bytes} (the mounts are made before this). */
    private final boolean largerBodies;

    ServerInitializer(ServerConfig config, HttpHandler handler, RequestTimers timers, Mounts mounts) {
        this.timers = timers;
        this.config = config;
        this.mounts = mounts;
        this.largerBodies = mounts.maxBodyBytes() > config.listen().maxBodyBytes();
        this.limit = new ConnectionLimit(config.listen().maxConnections(), config.listen().maxConnectionsPerClient(),
                config.listen().requestTimeoutMs());
        this.handler = handler;
    }

    ConnectionLimit limit() {
        return limit;
    }

    @Override
    protected void initChannel(SocketChannel ch) {
        ch.pipeline()
                .addLast("backpressure", new WriteLimit(config.listen().maxPendingWriteBytes(), writes))
                .addLast("limit", limit)
                .addLast("linger", new Linger())
                .addLast("codec", new HttpServerCodec(MAX_REQUEST_LINE, config.listen().maxHeaderBytes(), 8192))
                .addLast("inorder", new InOrder())
                .addLast("timing", timers.timing())
                .addLast("timeout", new RequestTimeout(config.listen().requestTimeoutMs()))
                .addLast("body", new BodyLimit(config.listen().maxBodyBytes()))
                .addLast("handler", handler);
        if (largerBodies) {
            ch.pipeline().addBefore("body", "mount-body", new MountBodyLimit(mounts, config.listen().maxBodyBytes()));
        }
    }

    /**
     * Counts open connections, in all ({@code max_connections}) and per client address
     * ({@code max_connections_per_client}, so that one client's parked polls or idle sockets cannot take every
     * slot). A connection past either limit takes one of {@link #PROBE_SLOTS} reserved slots, where only
     * {@code /health/live} and {@code /health/ready} are answered (an orchestrator's probe must not see a
     * healthy but busy server as dead) and anything else, or nothing within {@link #PROBE_MILLIS}, gets 503.
     * With every slot taken, the one held longest by a connection that has sent nothing yet is given to the
     * newcomer (the silent one gets 503 now rather than soon), so a client that floods silent connections
     * cannot keep a probe out; with none such, a raw 503 at once. Either way the connections already open
     * are unaffected.
     */
    @ChannelHandler.Sharable
    static final class ConnectionLimit extends ChannelInboundHandlerAdapter {
        static final String TOO_MANY = "too many connections; try again";
        @SuppressWarnings("StringConcatToTextBlock") // CRLF line ends, byte for byte
        private static final byte[] REFUSAL = ("HTTP/1.1 503 Service Unavailable\r\n"
                + "Content-Type: application/json; charset=utf-8\r\nConnection: close\r\nContent-Length: 59\r\n\r\n"
                + "{\"error\":\"" + TOO_MANY + "\",\"status\":503}\n\n\n").getBytes(StandardCharsets.US_ASCII);
        /** Connections past a limit that may still ask for a health probe's answer. */
        static final int PROBE_SLOTS = 8;
        /** How long a connection in a probe slot has to send its request. */
        static final long PROBE_MILLIS = 2000;
        /** Set on a connection in a probe slot: true while it holds the slot. */
        private static final AttributeKey<AtomicBoolean> PROBE_SLOT = AttributeKey.valueOf("pulsebus.probeSlot");
        /** Set on a connection past a limit: not in the counts (a probe slot, or refused). */
        private static final AttributeKey<Boolean> UNCOUNTED = AttributeKey.valueOf("pulsebus.uncounted");

        private final int max;
        private final int perClient;
        private final long requestTimeoutMs;
        private final AtomicInteger open = new AtomicInteger();
        private final AtomicInteger probes = new AtomicInteger();
        /** The connections in probe slots that have sent nothing yet, oldest first (at most {@link #PROBE_SLOTS}). */
        private final ConcurrentLinkedQueue<Channel> silent = new ConcurrentLinkedQueue<>();
        private final ConcurrentHashMap<InetAddress, Integer> byClient = new ConcurrentHashMap<>();
        final LongAdder refused = new LongAdder();

        ConnectionLimit(int max, int perClient, long requestTimeoutMs) {
            this.max = max;
            this.perClient = perClient;
            this.requestTimeoutMs = requestTimeoutMs;
        }

        int open() {
            return open.get();
        }

        /** True when {@code ctx}'s connection is in a probe slot: only the health probes are answered. */
        static boolean probeOnly(ChannelHandlerContext ctx) {
            return ctx.channel().hasAttr(PROBE_SLOT);
        }

        @Override
        public void channelActive(ChannelHandlerContext ctx) throws Exception {
            int all = open.incrementAndGet();
            InetAddress client = client(ctx);
            int mine = client == null ? 0 : byClient.merge(client, 1, Integer::sum);
            if (all > max || mine > perClient) {
                refused.increment();
                uncount(client); // past a limit: takes no one's place (a flood from one client shuts out no other)
                ctx.channel().attr(UNCOUNTED).set(Boolean.TRUE);
                if (!takeProbeSlot()) {
                    refuse(ctx.channel());
                    return;
                }
                Channel ch = ctx.channel();
                ch.attr(PROBE_SLOT).set(new AtomicBoolean(true));
                silent.add(ch);
                ctx.pipeline().addAfter(ctx.name(), "probe-talked", new Talked(silent));
                if (ctx.pipeline().get("timeout") != null) {
                    ctx.pipeline().replace("timeout", "timeout", new RequestTimeout(
                            Math.min(requestTimeoutMs, PROBE_MILLIS), HttpResponseStatus.SERVICE_UNAVAILABLE, TOO_MANY));
                }
            }
            super.channelActive(ctx);
        }

        /** Takes a free probe slot, or the slot of the longest silent connection (refused now); false if none. */
        private boolean takeProbeSlot() {
            for (;;) {
                int n = probes.get();
                if (n < PROBE_SLOTS) {
                    if (probes.compareAndSet(n, n + 1)) {
                        return true;
                    }
                    continue;
                }
                Channel oldest = silent.poll();
                if (oldest == null) {
                    return false;
                }
                if (release(oldest)) { // its slot passes to the newcomer: the count stays
                    refuse(oldest);
                    return true;
                }
            }
        }

        /** True when {@code ch} held a probe slot and now does not (once per connection). */
        private static boolean release(Channel ch) {
            AtomicBoolean slot = ch.attr(PROBE_SLOT).get();
            return slot != null && slot.compareAndSet(true, false);
        }

        /** The raw 503, written past the HTTP codec, then the connection closed. Any thread. */
        private void refuse(Channel ch) {
            ch.config().setAutoRead(false);
            ChannelHandlerContext limit = ch.pipeline().context(this);
            (limit != null ? limit.writeAndFlush(Unpooled.wrappedBuffer(REFUSAL)) : ch.newSucceededFuture())
                    .addListener(ChannelFutureListener.CLOSE);
        }

        private void uncount(@Nullable InetAddress client) {
            open.decrementAndGet();
            if (client != null) {
                byClient.computeIfPresent(client, (k, n) -> n == 1 ? null : n - 1);
            }
        }

        @Override
        public void channelInactive(ChannelHandlerContext ctx) throws Exception {
            if (!ctx.channel().hasAttr(UNCOUNTED)) {
                uncount(client(ctx));
            }
            if (probeOnly(ctx)) {
                silent.remove(ctx.channel());
                if (release(ctx.channel())) {
                    probes.decrementAndGet();
                }
            }
            super.channelInactive(ctx);
        }

        /** On a connection in a probe slot: its first bytes take it off the silent ones, then it goes. */
        private static final class Talked extends ChannelInboundHandlerAdapter {
            private final ConcurrentLinkedQueue<Channel> silent;

            Talked(ConcurrentLinkedQueue<Channel> silent) {
                this.silent = silent;
            }

            @Override
            public void channelRead(ChannelHandlerContext ctx, Object msg) {
                silent.remove(ctx.channel());
                ctx.pipeline().remove(this);
                ctx.fireChannelRead(msg);
            }
        }

        private static @Nullable InetAddress client(ChannelHandlerContext ctx) {
            return ctx.channel().remoteAddress() instanceof InetSocketAddress a ? a.getAddress() : null;
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
        private final HttpResponseStatus status;
        private final String message;
        /** When the request being waited for is due (0: none is timed now). Event-loop confined. */
        private long deadline;
        /** At most one timer per connection: it re-arms itself for a later deadline instead of being
         *  cancelled and replaced on every request (the IdleStateHandler way). */
        private boolean timerPending;

        RequestTimeout(long timeoutMs) {
            this(timeoutMs, HttpResponseStatus.REQUEST_TIMEOUT, "no complete request within " + timeoutMs + " ms");
        }

        /** Answers {@code status} with {@code message} when the time is up. */
        RequestTimeout(long timeoutMs, HttpResponseStatus status, String message) {
            this.timeoutNanos = TimeUnit.MILLISECONDS.toNanos(timeoutMs);
            this.status = status;
            this.message = message;
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
            Responses.refuse(ctx, status, message);
        }
    }

    /**
     * Events a platform's peer posts to a mounted path may be as large as the platform allows (a OneBot
     * implementation's, {@code max_frame_bytes}, 1 MiB), past the chat API's {@code max_body_bytes}: each
     * request gets the limit of its own path, the aggregator swapped between requests when the limit changes
     * (an implementation posts on connections of its own, so in practice once). Event-loop confined.
     */
    static final class MountBodyLimit extends ChannelInboundHandlerAdapter {
        private final Mounts mounts;
        private final int serverBytes;
        private int current;

        MountBodyLimit(Mounts mounts, int serverBytes) {
            this.mounts = mounts;
            this.serverBytes = serverBytes;
            this.current = serverBytes;
        }

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            if (msg instanceof io.netty.handler.codec.http.HttpRequest req && ctx.pipeline().get("body") != null) {
                int limit = mounts.maxBodyBytes(req.uri(), serverBytes);
                if (limit != current) {
                    current = limit; // the previous request is through the aggregator: it holds nothing now
                    ctx.pipeline().replace("body", "body", new BodyLimit(limit));
                }
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
