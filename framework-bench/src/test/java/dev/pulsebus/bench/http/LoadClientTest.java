package dev.pulsebus.bench.http;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.handler.codec.http.DefaultFullHttpRequest;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.codec.http.HttpVersion;
import java.net.InetSocketAddress;
import java.net.URI;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The open-loop accounting, against a server that stalls once for 300 ms on purpose: the open loop
 * charges the stall to every request scheduled during it (timed from its slot), while a closed loop
 * sees a single slow answer. This is what "coordinated omission" hides and what the harness must show.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class LoadClientTest {

    @Test
    void theOpenLoopChargesAStallToEveryRequestScheduledDuringIt() throws Exception {
        try (StallingServer server = new StallingServer(); LoadClient client = new LoadClient(1)) {
            URI url = server.url();
            LoadClient.Result open = client.openLoop(url, () -> request(url), 1, 1000, Duration.ofMillis(200),
                    Duration.ofSeconds(1));
            // About 300 requests were scheduled inside the 300 ms stall: each waited for it.
            long slow = open.latencyNanos().getCountBetweenValues(TimeUnit.MILLISECONDS.toNanos(100), Long.MAX_VALUE / 2);
            assertThat(slow).as("open-loop samples >= 100 ms").isGreaterThan(150);
            assertThat(open.latencyNanos().getMaxValue()).isGreaterThanOrEqualTo(TimeUnit.MILLISECONDS.toNanos(250));
            assertThat(open.count()).as("every slot was sent and answered").isBetween(900L, 1100L);

            server.stallNext();
            LoadClient.Result closed = client.closedLoop(url, () -> request(url), 1, Duration.ofMillis(0),
                    Duration.ofSeconds(1));
            long closedSlow = closed.latencyNanos().getCountBetweenValues(TimeUnit.MILLISECONDS.toNanos(100),
                    Long.MAX_VALUE / 2);
            assertThat(closedSlow).as("closed-loop samples >= 100 ms: the stall hides").isLessThanOrEqualTo(1);
        }
    }

    private static FullHttpRequest request(URI url) {
        FullHttpRequest r = new DefaultFullHttpRequest(HttpVersion.HTTP_1_1, HttpMethod.GET, "/", Unpooled.EMPTY_BUFFER);
        r.headers().set(HttpHeaderNames.HOST, url.getHost()).setInt(HttpHeaderNames.CONTENT_LENGTH, 0);
        return r;
    }

    /** Answers at once, except the 400th request (the first after warm-up starts measuring), held 300 ms. */
    static final class StallingServer implements AutoCloseable {
        private final EventLoopGroup group = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
        private final AtomicInteger until = new AtomicInteger(400);
        private final Channel listener;

        StallingServer() throws InterruptedException {
            listener = new ServerBootstrap().group(group).channel(NioServerSocketChannel.class)
                    .childHandler(new ChannelInitializer<SocketChannel>() {
                        @Override
                        protected void initChannel(SocketChannel ch) {
                            ch.pipeline().addLast(new HttpServerCodec(), new HttpObjectAggregator(1024),
                                    new SimpleChannelInboundHandler<FullHttpRequest>() {
                                        @Override
                                        protected void channelRead0(ChannelHandlerContext ctx, FullHttpRequest req) {
                                            FullHttpResponse res = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1,
                                                    HttpResponseStatus.OK, Unpooled.EMPTY_BUFFER);
                                            res.headers().setInt(HttpHeaderNames.CONTENT_LENGTH, 0);
                                            if (until.decrementAndGet() == 0) {
                                                ctx.executor().schedule(() -> ctx.writeAndFlush(res), 300, TimeUnit.MILLISECONDS);
                                            } else {
                                                ctx.writeAndFlush(res);
                                            }
                                        }
                                    });
                        }
                    }).bind("127.0.0.1", 0).sync().channel();
        }

        void stallNext() {
            until.set(100);
        }

        URI url() {
            return URI.create("http://127.0.0.1:" + ((InetSocketAddress) listener.localAddress()).getPort());
        }

        @Override
        public void close() {
            listener.close().awaitUninterruptibly();
            group.shutdownGracefully(0, 1, TimeUnit.SECONDS).awaitUninterruptibly();
        }
    }
}
