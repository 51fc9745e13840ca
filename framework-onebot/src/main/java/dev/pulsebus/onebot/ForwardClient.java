package dev.pulsebus.onebot;

import dev.pulsebus.netty.ChannelSession;
import dev.pulsebus.netty.WebSocketMessages;
import dev.pulsebus.netty.WriteLimit;
import dev.pulsebus.platform.WebSocketListener;
import dev.pulsebus.internal.Backoff;
import dev.pulsebus.internal.FailureLog;
import io.netty.bootstrap.Bootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.handler.codec.http.DefaultHttpHeaders;
import io.netty.handler.codec.http.HttpClientCodec;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.websocketx.WebSocketClientProtocolConfig;
import io.netty.handler.codec.http.websocketx.WebSocketClientProtocolHandler;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import java.net.URI;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The forward WebSocket: PulseBus connects to the implementation's URL ({@code Authorization: Bearer
 * <token>} when a token is set) and, whenever the connection is lost or cannot be made, tries again after
 * a {@link Backoff} delay (0.5 s doubling to 30 s, with jitter), until stopped. One event-loop thread of its
 * own, which also runs the connection's timers. Backpressure as on the server's connections ({@link WriteLimit},
 * at its default limit of 4 MiB): reading paused while the implementation does not read, the connection closed
 * with 1008 past the limit (and made again after the backoff).
 */
final class ForwardClient {

    private static final Logger LOG = LoggerFactory.getLogger(ForwardClient.class);

    private final OneBotAdapter adapter;
    private final URI uri;
    private final EventLoopGroup group = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
    private final Backoff backoff = new Backoff(() -> ThreadLocalRandom.current().nextDouble());
    private final FailureLog failures = FailureLog.warning(LOG, java.time.Duration.ofSeconds(60));
    private volatile boolean stopped;
    private volatile @Nullable Channel channel;

    ForwardClient(OneBotAdapter adapter, URI uri) {
        this.adapter = adapter;
        this.uri = uri;
    }

    void start() {
        group.execute(this::connect);
    }

    void stop() {
        stopped = true;
        Channel c = channel;
        if (c != null) {
            c.close().awaitUninterruptibly(1000);
        }
        group.shutdownGracefully(0, 1, TimeUnit.SECONDS).awaitUninterruptibly(2000);
    }

    private void connect() {
        if (stopped) {
            return;
        }
        boolean tls = "wss".equalsIgnoreCase(uri.getScheme());
        int port = uri.getPort() > 0 ? uri.getPort() : tls ? 443 : 80;
        AtomicBoolean retried = new AtomicBoolean();
        OneBotSettings s = adapter.settings;
        SslContext ssl;
        try {
            ssl = tls ? SslContextBuilder.forClient().build() : null;
        } catch (javax.net.ssl.SSLException e) {
            failures.warn("OneBot v{}: cannot set up TLS for {}: {}", adapter.protocol.label, uri, e.toString());
            return;
        }
        new Bootstrap().group(group).channel(NioSocketChannel.class)
                .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, 10_000).option(ChannelOption.TCP_NODELAY, true)
                .handler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel ch) {
                        HttpHeaders headers = new DefaultHttpHeaders();
                        if (!s.accessToken().isEmpty()) {
                            headers.set(HttpHeaderNames.AUTHORIZATION, "Bearer " + s.accessToken().reveal());
                        }
                        WebSocketClientProtocolConfig config = WebSocketClientProtocolConfig.newBuilder()
                                .webSocketUri(uri).customHeaders(headers)
                                .maxFramePayloadLength((int) Math.min(64L * 1024 * 1024,
                                        Math.max(16L * 1024 * 1024, 4L * s.maxFrameBytes())))
                                .handshakeTimeoutMillis(10_000).dropPongFrames(true).build();
                        WebSocketListener listener = adapter.listener(WsConnection.Role.UNIVERSAL, "");
                        ChannelSession session = new ChannelSession(ch);
                        ch.pipeline().addLast("backpressure", new WriteLimit(WriteLimit.DEFAULT_MAX_PENDING,
                                adapter.metrics.writes));
                        if (ssl != null) {
                            ch.pipeline().addLast(ssl.newHandler(ch.alloc(), uri.getHost(), port));
                        }
                        ch.pipeline().addLast(new HttpClientCodec(), new HttpObjectAggregator(64 * 1024),
                                new WebSocketClientProtocolHandler(config), new Handshaken(session, listener),
                                new WebSocketMessages(session, listener, s.maxFrameBytes()));
                        ch.closeFuture().addListener(f -> retry(retried, null));
                    }
                })
                .connect(uri.getHost(), port).addListener(f -> {
                    if (!f.isSuccess()) {
                        retry(retried, f.cause());
                    }
                });
    }

    /** Once per attempt: the next one after the backoff's delay. */
    private void retry(AtomicBoolean retried, @Nullable Throwable cause) {
        if (stopped || !retried.compareAndSet(false, true)) {
            return;
        }
        channel = null;
        long delay = backoff.next();
        adapter.metrics.reconnects.increment();
        failures.warn("OneBot v{}: no connection to {} ({}); trying again in {} ms (warned at most once a minute)",
                adapter.protocol.label, uri, cause == null ? "closed" : cause.toString(), delay);
        group.schedule(this::connect, delay, TimeUnit.MILLISECONDS);
    }

    /** When the handshake is done, the connection is the adapter's (and the backoff starts over). */
    private final class Handshaken extends ChannelInboundHandlerAdapter {
        private final ChannelSession session;
        private final WebSocketListener listener;

        Handshaken(ChannelSession session, WebSocketListener listener) {
            this.session = session;
            this.listener = listener;
        }

        @Override
        public void userEventTriggered(ChannelHandlerContext ctx, Object evt) throws Exception {
            if (evt == WebSocketClientProtocolHandler.ClientHandshakeStateEvent.HANDSHAKE_COMPLETE) {
                backoff.reset();
                channel = ctx.channel();
                LOG.info("OneBot v{}: connected to {}", adapter.protocol.label, uri);
                listener.opened(session);
            }
            super.userEventTriggered(ctx, evt);
        }
    }
}
