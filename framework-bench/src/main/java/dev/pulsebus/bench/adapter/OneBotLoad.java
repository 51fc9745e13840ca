package dev.pulsebus.bench.adapter;

import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.epoll.EpollSocketChannel;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.handler.codec.http.DefaultHttpHeaders;
import io.netty.handler.codec.http.HttpClientCodec;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.websocketx.TextWebSocketFrame;
import io.netty.handler.codec.http.websocketx.WebSocketClientProtocolConfig;
import io.netty.handler.codec.http.websocketx.WebSocketClientProtocolHandler;
import io.netty.handler.codec.http.websocketx.WebSocketFrame;
import io.netty.handler.codec.http.websocketx.WebSocketVersion;
import java.net.URI;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.HdrHistogram.Histogram;

/**
 * A OneBot v11 implementation's side of a reverse WebSocket, for load: it connects as NapCat does
 * ({@code X-Self-ID}, role {@code Universal}), sends {@code /echo hi} group messages and answers every
 * {@code send_group_msg} that comes back with a success response carrying its {@code echo}, on one Netty
 * event loop of its own. Frames go out as bytes made from templates and actions are read as bytes (the
 * {@code echo} and the replied-to message id), so the client takes as little of the machine as it can.
 *
 * <p>{@link #openLoop} sends at a fixed rate and times each message from its <em>scheduled</em> send to
 * the arrival of the action answering it: a stall of the server delays every message scheduled during it,
 * and each counts the delay it caused (no coordinated omission). Messages due while the timer was late go
 * out together at its next firing, each still timed from its own slot. {@link #flood} keeps a window of
 * messages in flight, sending one more for each answered: as many as one connection carries.
 */
final class OneBotLoad implements AutoCloseable {

    /** Answers in the measured window, their latencies (ns), and what was sent but not answered by the end. */
    record Result(long answered, double seconds, Histogram latencyNanos, long unanswered) {
        double perSecond() {
            return answered / seconds;
        }
    }

    /** The least time between two firings of the open loop's timer. */
    private static final long MIN_GAP_NANOS = Long.getLong("pulsebus.bench.pacerGapNanos", 100_000);
    /** Messages in flight the ring of send times can tell apart; a run keeps far fewer in flight. */
    private static final int RING = 1 << 16;
    private static final Duration DRAIN = Duration.ofSeconds(10);

    private final EventLoopGroup group;
    private final Class<? extends SocketChannel> channel;
    /** Message ids never repeat on one server (its deduplication would drop a repeat). */
    private long nextId = 1_000_000;

    OneBotLoad() {
        boolean epoll = Epoll.isAvailable();
        group = new MultiThreadIoEventLoopGroup(1, epoll ? EpollIoHandler.newFactory() : NioIoHandler.newFactory());
        channel = epoll ? EpollSocketChannel.class : NioSocketChannel.class;
    }

    /** {@code rate} messages a second, timed from their slots, over a new connection to {@code uri}. */
    Result openLoop(URI uri, double rate, Duration warmup, Duration measure) throws Exception {
        return run(uri, (long) (1e9 / rate), 0, warmup, measure);
    }

    /** {@code window} messages in flight, one more sent for each answered, over a new connection to {@code uri}. */
    Result flood(URI uri, int window, Duration warmup, Duration measure) throws Exception {
        return run(uri, 0, window, warmup, measure);
    }

    private Result run(URI uri, long interval, int window, Duration warmup, Duration measure) throws Exception {
        Conn c = new Conn(nextId, interval, window);
        DefaultHttpHeaders headers = new DefaultHttpHeaders();
        headers.set("X-Self-ID", Long.toString(V11Frames.SELF)).set("X-Client-Role", "Universal");
        WebSocketClientProtocolConfig config = WebSocketClientProtocolConfig.newBuilder()
                .webSocketUri(uri).version(WebSocketVersion.V13).customHeaders(headers)
                .maxFramePayloadLength(1 << 20).handshakeTimeoutMillis(10_000)
                .withUTF8Validator(false) // a load client: what it reads it scans for two numbers, nothing more
                .build();
        Channel ch = new Bootstrap().group(group).channel(channel)
                .option(ChannelOption.TCP_NODELAY, true)
                .handler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel s) {
                        s.pipeline().addLast(new HttpClientCodec(), new HttpObjectAggregator(1 << 16),
                                new WebSocketClientProtocolHandler(config), c);
                    }
                })
                .connect(uri.getHost(), uri.getPort()).sync().channel();
        try {
            c.handshake.get(10, TimeUnit.SECONDS);
            long start = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(20);
            c.measureFrom = start + warmup.toNanos();
            c.end = c.measureFrom + measure.toNanos();
            ch.eventLoop().execute(() -> c.begin(start));
            try {
                c.done.get(warmup.toNanos() + measure.toNanos() + DRAIN.toNanos() + TimeUnit.SECONDS.toNanos(5),
                        TimeUnit.NANOSECONDS);
            } catch (TimeoutException e) {
                // what was not answered is counted below
            }
            long[] counts = ch.eventLoop().submit(() -> new long[] {c.answered, c.sent - c.answeredAll}).get();
            nextId = c.nextId;
            Histogram h = ch.eventLoop().submit(c.histogram::copy).get();
            return new Result(counts[0], measure.toNanos() / 1e9, h, counts[1]);
        } finally {
            ch.close().sync();
        }
    }

    /** One connection's messages, clock and histogram; used on its event loop only. */
    private static final class Conn extends SimpleChannelInboundHandler<WebSocketFrame> implements Runnable {
        final CompletableFuture<Void> handshake = new CompletableFuture<>();
        final CompletableFuture<Void> done = new CompletableFuture<>();
        final Histogram histogram = new Histogram(TimeUnit.SECONDS.toNanos(60), 3);
        final long interval;
        final int window;
        final long firstId;
        final long[] intended = new long[RING];
        long measureFrom;
        long end;
        long nextId;
        long nextAt;
        long sent;
        long answered;
        long answeredAll;
        long responses;
        boolean stopped;
        ChannelHandlerContext ctx;

        Conn(long firstId, long interval, int window) {
            this.firstId = firstId;
            this.nextId = firstId;
            this.interval = interval;
            this.window = window;
        }

        @Override
        public void handlerAdded(ChannelHandlerContext ctx) {
            this.ctx = ctx;
        }

        @Override
        public void userEventTriggered(ChannelHandlerContext ctx, Object evt) throws Exception {
            if (evt == WebSocketClientProtocolHandler.ClientHandshakeStateEvent.HANDSHAKE_COMPLETE) {
                handshake.complete(null);
            } else if (evt == WebSocketClientProtocolHandler.ClientHandshakeStateEvent.HANDSHAKE_TIMEOUT) {
                handshake.completeExceptionally(new TimeoutException("the WebSocket handshake timed out"));
            }
            super.userEventTriggered(ctx, evt);
        }

        void begin(long start) {
            nextAt = start;
            if (interval > 0) {
                run();
            } else {
                for (int i = 0; i < window; i++) {
                    send(System.nanoTime());
                }
                ctx.flush();
            }
        }

        /** The open loop's timer: sends every message now due, each timed from its slot, then sets itself again. */
        @Override
        public void run() {
            long now = System.nanoTime();
            boolean any = false;
            while (nextAt <= now && nextAt < end) {
                send(nextAt);
                nextAt += interval;
                any = true;
            }
            if (any) {
                ctx.flush();
            }
            if (nextAt < end) {
                ctx.executor().schedule(this, Math.max(nextAt - now, MIN_GAP_NANOS), TimeUnit.NANOSECONDS);
            } else {
                stop();
            }
        }

        private void send(long at) {
            long id = nextId++;
            intended[(int) (id & (RING - 1))] = at;
            sent++;
            ctx.write(new TextWebSocketFrame(V11Frames.echoMessage(ctx.alloc(), id)));
        }

        @Override
        protected void channelRead0(ChannelHandlerContext ctx, WebSocketFrame frame) {
            if (!(frame instanceof TextWebSocketFrame)) {
                return;
            }
            ByteBuf action = frame.content();
            long now = System.nanoTime();
            long id = V11Frames.repliedTo(action);
            int echo = V11Frames.indexOf(action, V11Frames.ECHO_KEY, action.readerIndex());
            if (id < firstId || id >= nextId || echo < 0) {
                return; // not an answer to one of this run's messages
            }
            int from = echo + V11Frames.ECHO_KEY.length;
            ctx.write(new TextWebSocketFrame(V11Frames.response(ctx.alloc(), ++responses, action, from,
                    V11Frames.valueEnd(action, from))));
            long at = intended[(int) (id & (RING - 1))];
            answeredAll++;
            if (at >= measureFrom && at < end) {
                answered++;
                histogram.recordValue(Math.min(now - at, histogram.getHighestTrackableValue()));
            }
            if (interval == 0) {
                if (now < end) {
                    send(now);
                } else {
                    stop();
                }
            }
            if (stopped && answeredAll == sent) {
                done.complete(null);
            }
        }

        @Override
        public void channelReadComplete(ChannelHandlerContext ctx) {
            ctx.flush();
        }

        /** No more sends; {@link #done} once the messages in flight are answered (or the drain time ran out). */
        private void stop() {
            if (!stopped) {
                stopped = true;
                ctx.executor().schedule(() -> done.complete(null), DRAIN.toNanos(), TimeUnit.NANOSECONDS);
                if (answeredAll == sent) {
                    done.complete(null);
                }
            }
        }

        @Override
        public void channelInactive(ChannelHandlerContext ctx) {
            handshake.completeExceptionally(new IllegalStateException("the connection closed"));
            done.complete(null);
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            handshake.completeExceptionally(cause);
            done.complete(null);
            ctx.close();
        }
    }

    @Override
    public void close() {
        group.shutdownGracefully(0, 1, TimeUnit.SECONDS).awaitUninterruptibly(5, TimeUnit.SECONDS);
    }
}
