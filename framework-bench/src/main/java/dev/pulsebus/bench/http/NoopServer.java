package dev.pulsebus.bench.http;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.epoll.EpollServerSocketChannel;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.codec.http.HttpVersion;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;

/**
 * The do-nothing server: the same Netty transport, codec and aggregator as PulseBus's, answering every
 * request with a fixed {@code {"status":"UP"}}. What the harness and the transport cost on their own:
 * the floor our rows are measured against.
 */
public final class NoopServer implements AutoCloseable {

    private static final ByteBuf BODY = Unpooled.unreleasableBuffer(Unpooled.directBuffer().writeBytes(
            "{\"status\":\"UP\"}".getBytes(StandardCharsets.US_ASCII)));

    private final EventLoopGroup group;
    private final Channel listener;

    public NoopServer() throws InterruptedException {
        group = loops();
        listener = listen(group, new ChannelInitializer<SocketChannel>() {
            @Override
            protected void initChannel(SocketChannel ch) {
                ch.pipeline().addLast(new HttpServerCodec(), new HttpObjectAggregator(65536), Answer.INSTANCE);
            }
        });
    }

    /** One event loop per core, on the transport PulseBus's server uses (epoll where there is one). */
    public static EventLoopGroup loops() {
        return new MultiThreadIoEventLoopGroup(Runtime.getRuntime().availableProcessors(),
                Epoll.isAvailable() ? EpollIoHandler.newFactory() : NioIoHandler.newFactory());
    }

    /** A listener on a free loopback port, {@code TCP_NODELAY}, its connections set up by {@code children}. */
    public static Channel listen(EventLoopGroup group, ChannelInitializer<SocketChannel> children)
            throws InterruptedException {
        return new ServerBootstrap().group(group)
                .channel(Epoll.isAvailable() ? EpollServerSocketChannel.class : NioServerSocketChannel.class)
                .childOption(ChannelOption.TCP_NODELAY, true)
                .childHandler(children)
                .bind("127.0.0.1", 0).sync().channel();
    }

    public URI url() {
        return URI.create("http://127.0.0.1:" + ((InetSocketAddress) listener.localAddress()).getPort());
    }

    @ChannelHandler.Sharable
    private static final class Answer extends SimpleChannelInboundHandler<FullHttpRequest> {
        static final Answer INSTANCE = new Answer();

        @Override
        protected void channelRead0(ChannelHandlerContext ctx, FullHttpRequest req) {
            FullHttpResponse res = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.OK,
                    BODY.duplicate());
            res.headers().set(HttpHeaderNames.CONTENT_TYPE, "application/json; charset=utf-8")
                    .setInt(HttpHeaderNames.CONTENT_LENGTH, BODY.readableBytes());
            ctx.writeAndFlush(res);
        }
    }

    @Override
    public void close() {
        listener.close().awaitUninterruptibly();
        group.shutdownGracefully(0, 1, TimeUnit.SECONDS).awaitUninterruptibly(5, TimeUnit.SECONDS);
    }
}
