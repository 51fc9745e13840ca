package dev.pulsebus.bench.http;

import io.netty.bootstrap.Bootstrap;
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
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpClientCodec;
import io.netty.handler.codec.http.HttpObjectAggregator;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.HdrHistogram.Histogram;

/**
 * The HTTP load generator: keep-alive connections on Netty, each with one request in flight.
 *
 * <p>{@link #closedLoop} sends the next request when the last answer arrives: the saturation
 * throughput. {@link #openLoop} sends on a fixed schedule, {@code rate} requests a second spread over
 * the connections, and measures each latency from the request's <em>intended</em> send time; a request
 * that has to wait for its connection is sent late but still timed from its slot, so a stall shows as
 * the latency it caused instead of hiding in requests never sent (coordinated omission).
 */
public final class LoadClient implements AutoCloseable {

    /** Answers counted and latencies (ns) recorded in the measured window. */
    public record Result(long count, double seconds, Histogram latencyNanos, long errors) {
        public double opsPerSec() {
            return count / seconds;
        }
    }

    private final EventLoopGroup group;
    private final Class<? extends SocketChannel> channel;

    public LoadClient(int threads) {
        boolean epoll = Epoll.isAvailable();
        group = new MultiThreadIoEventLoopGroup(threads, epoll ? EpollIoHandler.newFactory() : NioIoHandler.newFactory());
        channel = epoll ? EpollSocketChannel.class : NioSocketChannel.class;
    }

    public Result closedLoop(URI server, Supplier<FullHttpRequest> request, int connections, Duration warmup,
                             Duration measure) throws Exception {
        return run(server, request, connections, 0, warmup, measure);
    }

    public Result openLoop(URI server, Supplier<FullHttpRequest> request, int connections, double rate, Duration warmup,
                           Duration measure) throws Exception {
        return run(server, request, connections, rate, warmup, measure);
    }

    private Result run(URI server, Supplier<FullHttpRequest> request, int connections, double rate, Duration warmup,
                       Duration measure) throws Exception {
        long start = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(50);
        long measureFrom = start + warmup.toNanos();
        long end = measureFrom + measure.toNanos();
        CountDownLatch done = new CountDownLatch(connections);
        List<Conn> conns = new ArrayList<>();
        for (int i = 0; i < connections; i++) {
            // Open loop: connection i takes slots i, i + C, i + 2C, ... of one schedule at `rate`.
            long interval = rate > 0 ? (long) (1e9 * connections / rate) : 0;
            long offset = rate > 0 ? (long) (1e9 * i / rate) : 0;
            Conn c = new Conn(request, start + offset, interval, measureFrom, end, done);
            conns.add(c);
            Channel ch = new Bootstrap().group(group).channel(channel)
                    .option(ChannelOption.TCP_NODELAY, true)
                    .handler(new ChannelInitializer<SocketChannel>() {
                        @Override
                        protected void initChannel(SocketChannel sc) {
                            sc.pipeline().addLast(new HttpClientCodec(), new HttpObjectAggregator(16 << 20), c);
                        }
                    })
                    .connect(server.getHost(), server.getPort()).sync().channel();
            c.channel = ch;
        }
        for (Conn c : conns) {
            c.channel.eventLoop().execute(c::next);
        }
        if (!done.await(measure.toNanos() + warmup.toNanos() + TimeUnit.SECONDS.toNanos(60), TimeUnit.NANOSECONDS)) {
            throw new IllegalStateException("load run did not finish: the server stopped answering");
        }
        Histogram all = new Histogram(TimeUnit.SECONDS.toNanos(60), 3);
        long count = 0;
        long errors = 0;
        for (Conn c : conns) {
            all.add(c.histogram);
            count += c.count;
            errors += c.errors;
            c.channel.close().sync();
        }
        return new Result(count, measure.toNanos() / 1e9, all, errors);
    }

    /** One connection: one request in flight, its clock and its histogram (used on its event loop only). */
    private static final class Conn extends SimpleChannelInboundHandler<FullHttpResponse> {
        final Supplier<FullHttpRequest> request;
        final long interval;
        final long measureFrom;
        final long end;
        final CountDownLatch done;
        final Histogram histogram = new Histogram(TimeUnit.SECONDS.toNanos(60), 3);
        Channel channel;
        long intended;
        long sent;
        long count;
        long errors;
        boolean finished;

        Conn(Supplier<FullHttpRequest> request, long first, long interval, long measureFrom, long end,
             CountDownLatch done) {
            this.request = request;
            this.intended = first;
            this.interval = interval;
            this.measureFrom = measureFrom;
            this.end = end;
            this.done = done;
        }

        void next() {
            long now = System.nanoTime();
            if (interval == 0) {
                intended = now; // closed loop: the request leaves now
            }
            if (intended >= end) {
                finish();
                return;
            }
            if (intended > now) {
                channel.eventLoop().schedule(this::send, intended - now, TimeUnit.NANOSECONDS);
            } else {
                send();
            }
        }

        private void send() {
            sent = System.nanoTime();
            channel.writeAndFlush(request.get());
        }

        @Override
        protected void channelRead0(ChannelHandlerContext ctx, FullHttpResponse res) {
            long now = System.nanoTime();
            if (intended >= measureFrom) {
                count++;
                histogram.recordValue(Math.min(now - intended, histogram.getHighestTrackableValue()));
                if (res.status().code() >= 400) {
                    errors++;
                }
            }
            if (interval > 0) {
                intended += interval;
            }
            next();
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            errors++;
            ctx.close();
            finish();
        }

        private void finish() {
            if (!finished) {
                finished = true;
                done.countDown();
            }
        }
    }

    @Override
    public void close() {
        group.shutdownGracefully(0, 1, TimeUnit.SECONDS).awaitUninterruptibly(5, TimeUnit.SECONDS);
    }
}
