package dev.pulsebus.bench.http;

import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoop;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.epoll.EpollSocketChannel;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ScheduledFuture;
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
 *
 * <p>It costs the machine it measures as little as it can, since on two cores its own CPU time is
 * taken from the server: requests go out as the bytes {@link #request} made, answers are read as bytes
 * (status line and {@code Content-Length}, no header objects), and the open loop's connections on one
 * event loop share one timer, which sends every request due when it fires. {@link Result} reports
 * the CPU time its event loops used.
 */
public final class LoadClient implements AutoCloseable {

    /**
     * Answers counted and latencies (ns) recorded in the measured window, the CPU time the client's
     * event loops used over the whole run (warm-up included), -1 where the JVM cannot tell, and the answers
     * in each whole second of the window ({@code rounds}, by intended send time).
     */
    public record Result(long count, double seconds, Histogram latencyNanos, long errors, long clientCpuNanos,
                         double runSeconds, List<Double> rounds) {
        public double opsPerSec() {
            return count / seconds;
        }



        /** The client's CPU time as a share of one core over the run (0.5 = half a core); -1 if unknown. */
        public double clientCores() {
            return clientCpuNanos < 0 ? -1 : clientCpuNanos / (runSeconds * 1e9);
        }
    }

    private final EventLoopGroup group;
    private final Class<? extends SocketChannel> channel;

    public LoadClient(int threads) {
        boolean epoll = Epoll.isAvailable();
        group = new MultiThreadIoEventLoopGroup(threads, epoll ? EpollIoHandler.newFactory() : NioIoHandler.newFactory());
        channel = epoll ? EpollSocketChannel.class : NioSocketChannel.class;
    }

    /** A request as it goes on the wire: HTTP/1.1, keep-alive, a JSON body when {@code body} has bytes. */
    public static byte[] request(String method, URI server, String path, byte[] body) {
        return request(method, server.getHost() + ":" + server.getPort(), path, body);
    }

    /** {@link #request(String, URI, String, byte[])} with its {@code Host} header's value. */
    static byte[] request(String method, String host, String path, byte[] body) {
        String head = method + " " + path + " HTTP/1.1\r\nHost: " + host + "\r\n"
                + (body.length > 0 ? "Content-Type: application/json\r\n" : "")
                + "Content-Length: " + body.length + "\r\n\r\n";
        byte[] h = head.getBytes(StandardCharsets.US_ASCII);
        byte[] all = new byte[h.length + body.length];
        System.arraycopy(h, 0, all, 0, h.length);
        System.arraycopy(body, 0, all, h.length, body.length);
        return all;
    }

    public Result closedLoop(URI server, Supplier<byte[]> request, int connections, Duration warmup,
                             Duration measure) throws Exception {
        return run(server, request, connections, 0, warmup, measure);
    }

    public Result openLoop(URI server, Supplier<byte[]> request, int connections, double rate, Duration warmup,
                           Duration measure) throws Exception {
        return run(server, request, connections, rate, warmup, measure);
    }

    private Result run(URI server, Supplier<byte[]> request, int connections, double rate, Duration warmup,
                       Duration measure) throws Exception {
        long start = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(50);
        long measureFrom = start + warmup.toNanos();
        long end = measureFrom + measure.toNanos();
        CountDownLatch done = new CountDownLatch(connections);
        List<Conn> conns = new ArrayList<>();
        Map<EventLoop, Pacer> pacers = new HashMap<>();
        // Open loop: connection i takes slots i, i + C, i + 2C, ... of one schedule at `rate`.
        long interval = rate > 0 ? (long) (1e9 * connections / rate) : 0;
        for (int i = 0; i < connections; i++) {
            long offset = rate > 0 ? (long) (1e9 * i / rate) : 0;
            Conn c = new Conn(request, start + offset, interval, measureFrom, end, done);
            conns.add(c);
            Channel ch = new Bootstrap().group(group).channel(channel)
                    .option(ChannelOption.TCP_NODELAY, true)
                    .handler(c)
                    .connect(server.getHost(), server.getPort()).sync().channel();
            c.channel = ch;
            c.pacer = pacers.computeIfAbsent(ch.eventLoop(), Pacer::new);
        }
        long[] threadIds = loopThreadIds(pacers.keySet());
        long cpu0 = cpuNanos(threadIds);
        long t0 = System.nanoTime();
        for (Conn c : conns) {
            c.channel.eventLoop().execute(c::next);
        }
        if (!done.await(measure.toNanos() + warmup.toNanos() + TimeUnit.SECONDS.toNanos(60), TimeUnit.NANOSECONDS)) {
            throw new IllegalStateException("load run did not finish: the server stopped answering");
        }
        double runSeconds = (System.nanoTime() - t0) / 1e9;
        long cpu = cpu0 < 0 ? -1 : cpuNanos(threadIds) - cpu0;
        Histogram all = new Histogram(TimeUnit.SECONDS.toNanos(60), 3);
        long count = 0;
        long errors = 0;
        long[] perSecond = new long[Conn.SECONDS];
        for (Conn c : conns) {
            all.add(c.histogram);
            count += c.count;
            errors += c.errors;
            for (int i = 0; i < perSecond.length; i++) {
                perSecond[i] += c.perSecond[i];
            }
            c.channel.close().sync();
        }
        List<Double> rounds = new ArrayList<>();
        for (int i = 0; i < Math.min(perSecond.length, measure.toSeconds()); i++) {
            rounds.add((double) perSecond[i]);
        }
        return new Result(count, measure.toNanos() / 1e9, all, errors, cpu, runSeconds, List.copyOf(rounds));
    }

    private static long[] loopThreadIds(Iterable<EventLoop> loops) throws InterruptedException {
        List<Long> ids = new ArrayList<>();
        for (EventLoop loop : loops) {
            long[] id = new long[1];
            loop.submit(() -> id[0] = Thread.currentThread().threadId()).sync();
            ids.add(id[0]);
        }
        return ids.stream().mapToLong(Long::longValue).toArray();
    }

    /** The CPU time of these threads, or -1 when the JVM does not measure thread CPU time. */
    private static long cpuNanos(long[] threadIds) {
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        if (!threads.isThreadCpuTimeSupported() || !threads.isThreadCpuTimeEnabled()) {
            return -1;
        }
        long sum = 0;
        for (long id : threadIds) {
            long t = threads.getThreadCpuTime(id);
            if (t < 0) {
                return -1;
            }
            sum += t;
        }
        return sum;
    }

    /**
     * The open loop's timer for the connections of one event loop: a connection whose next slot has not
     * come waits here, and one firing sends every waiting connection's request that is due, then sets
     * the timer for the earliest slot left. Used on its event loop only.
     */
    private static final class Pacer implements Runnable {
        /**
         * The least time between two firings: requests due in between leave together at the next one,
         * each still timed from its own slot (so the wait counts in its latency, up to this much). A
         * firing per slot would wake the event loop once per request; at high rates one wake-up for all
         * the requests then due leaves the client more of its core, which the server shares.
         */
        static final long MIN_GAP_NANOS = Long.getLong("pulsebus.bench.pacerGapNanos", 100_000);

        private final EventLoop loop;
        private final List<Conn> waiting = new ArrayList<>();
        /** The armed firing and when it is due; null and MAX_VALUE when none is. */
        private ScheduledFuture<?> timer;
        private long timerAt = Long.MAX_VALUE;
        private long lastFired;

        Pacer(EventLoop loop) {
            this.loop = loop;
        }

        void await(Conn c, long now) {
            waiting.add(c);
            long at = Math.max(c.intended, lastFired + MIN_GAP_NANOS);
            if (at < timerAt) {
                arm(at, now);
            }
        }

        /** Sets the one firing for {@code at}, cancelling a later one set before. */
        private void arm(long at, long now) {
            if (timer != null) {
                timer.cancel(false);
            }
            timerAt = at;
            timer = loop.schedule(this, Math.max(0, at - now), TimeUnit.NANOSECONDS);
        }

        @Override
        public void run() {
            long now = System.nanoTime();
            timer = null;
            timerAt = Long.MAX_VALUE;
            lastFired = now;
            long next = Long.MAX_VALUE;
            for (int i = 0; i < waiting.size(); ) {
                Conn c = waiting.get(i);
                if (c.intended <= now) {
                    waiting.set(i, waiting.get(waiting.size() - 1));
                    waiting.remove(waiting.size() - 1);
                    c.send();
                } else {
                    next = Math.min(next, c.intended);
                    i++;
                }
            }
            if (next != Long.MAX_VALUE) {
                arm(Math.max(next, now + MIN_GAP_NANOS), now);
            }
        }
    }

    /**
     * One connection: one request in flight, its clock and its histogram (used on its event loop only).
     * Answers are parsed as bytes: the status code, {@code Content-Length}, and the body skipped.
     */
    private static final class Conn extends ChannelInboundHandlerAdapter {
        private static final int MAX_HEAD = 16 << 10;
        private static final byte[] CONTENT_LENGTH = "content-length:".getBytes(StandardCharsets.US_ASCII);

        final Supplier<byte[]> request;
        final long interval;
        final long measureFrom;
        final long end;
        final CountDownLatch done;
        final Histogram histogram = new Histogram(TimeUnit.SECONDS.toNanos(60), 3);
        Channel channel;
        Pacer pacer;
        long intended;
        /** Whole seconds of the measured window counted apart (rounds); later answers count in the total only. */
        static final int SECONDS = 60;
        long count;
        /** Answers in each second of the measured window, by intended send time. */
        final long[] perSecond = new long[SECONDS];
        long errors;
        boolean finished;
        /** Bytes of answers not yet consumed. */
        private ByteBuf in;
        /** Body bytes of the current answer still to skip; -1 while reading its head. */
        private int bodyLeft = -1;
        private int status;

        Conn(Supplier<byte[]> request, long first, long interval, long measureFrom, long end, CountDownLatch done) {
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
            } else if (intended > now) {
                pacer.await(this, now);
            } else {
                send();
            }
        }

        void send() {
            channel.writeAndFlush(Unpooled.wrappedBuffer(request.get()));
        }

        @Override
        public void handlerAdded(ChannelHandlerContext ctx) {
            in = ctx.alloc().heapBuffer(1024);
        }

        @Override
        public void handlerRemoved(ChannelHandlerContext ctx) {
            in.release();
        }

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) throws IOException {
            ByteBuf bytes = (ByteBuf) msg;
            try {
                in.writeBytes(bytes);
            } finally {
                bytes.release();
            }
            while (true) {
                if (bodyLeft >= 0) {
                    int n = Math.min(bodyLeft, in.readableBytes());
                    in.skipBytes(n);
                    bodyLeft -= n;
                    if (bodyLeft > 0) {
                        break;
                    }
                    bodyLeft = -1;
                    answered(status);
                    continue;
                }
                int headEnd = headEnd(in);
                if (headEnd < 0) {
                    if (in.readableBytes() > MAX_HEAD) {
                        throw new IOException("an answer's head is over " + MAX_HEAD + " bytes");
                    }
                    break;
                }
                status = status(in);
                bodyLeft = contentLength(in, headEnd);
                in.readerIndex(headEnd + 4);
            }
            in.discardSomeReadBytes();
        }

        private void answered(int code) {
            long now = System.nanoTime();
            if (intended >= measureFrom) {
                count++;
                long second = (intended - measureFrom) / 1_000_000_000L;
                if (second < SECONDS) {
                    perSecond[(int) second]++;
                }
                histogram.recordValue(Math.min(now - intended, histogram.getHighestTrackableValue()));
                if (code >= 400) {
                    errors++;
                }
            }
            if (interval > 0) {
                intended += interval;
            }
            next();
        }

        /** The index of the {@code \r\n\r\n} that ends the head at the reader index, or -1. */
        private static int headEnd(ByteBuf b) {
            for (int i = b.readerIndex(), last = b.writerIndex() - 4; i <= last; i++) {
                if (b.getByte(i) == '\r' && b.getByte(i + 1) == '\n' && b.getByte(i + 2) == '\r' && b.getByte(i + 3) == '\n') {
                    return i;
                }
            }
            return -1;
        }

        /** The status code of {@code HTTP/1.1 200 OK}: three digits after the first space. */
        private static int status(ByteBuf b) throws IOException {
            int at = b.readerIndex() + 9;
            int code = 0;
            for (int i = at; i < at + 3; i++) {
                int d = b.getByte(i) - '0';
                if (d < 0 || d > 9) {
                    throw new IOException("not an HTTP status line");
                }
                code = code * 10 + d;
            }
            return code;
        }

        /** The value of the head's {@code Content-Length}; an answer without one is an error here. */
        private static int contentLength(ByteBuf b, int headEnd) throws IOException {
            byte[] name = CONTENT_LENGTH;
            for (int line = b.indexOf(b.readerIndex(), headEnd, (byte) '\n') + 1; line > 0 && line < headEnd;
                 line = b.indexOf(line, headEnd, (byte) '\n') + 1) {
                int k = 0;
                while (k < name.length && line + k < headEnd && (b.getByte(line + k) | 0x20) == name[k]) {
                    k++;
                }
                if (k == name.length) {
                    int i = line + k;
                    while (b.getByte(i) == ' ') {
                        i++;
                    }
                    int value = 0;
                    for (int d; (d = b.getByte(i) - '0') >= 0 && d <= 9; i++) {
                        value = value * 10 + d;
                    }
                    return value;
                }
            }
            throw new IOException("an answer without Content-Length (this client reads no other framing)");
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            errors++;
            ctx.close();
            finish();
        }

        @Override
        public void channelInactive(ChannelHandlerContext ctx) {
            if (!finished) {
                errors++; // the server closed it early: counted, so a short run shows in the result
            }
            finish(); // what was measured stands, the run does not wait for it
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
