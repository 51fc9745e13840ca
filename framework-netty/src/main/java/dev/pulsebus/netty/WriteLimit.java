package dev.pulsebus.netty;

import dev.pulsebus.internal.FailureLog;
import io.netty.channel.Channel;
import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelOutboundBuffer;
import io.netty.channel.ChannelPromise;
import io.netty.channel.MaxMessagesRecvByteBufAllocator;
import io.netty.channel.RecvByteBufAllocator;
import io.netty.channel.WriteBufferWaterMark;
import io.netty.channel.socket.DuplexChannel;
import io.netty.handler.codec.http.websocketx.CloseWebSocketFrame;
import io.netty.handler.codec.http.websocketx.WebSocketCloseStatus;
import io.netty.handler.codec.http.websocketx.WebSocketFrameEncoder;
import io.netty.util.ReferenceCountUtil;
import java.nio.channels.ClosedChannelException;
import java.time.Duration;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Backpressure on one connection whose peer may not read what it is sent, first in the pipeline so that
 * every write passes it. It sets the connection's write-buffer watermarks ({@link #waterMark}); while the
 * connection is unwritable (more than the high mark queued), reading it is paused (auto-read off, counted in
 * {@link Counts#paused}) and resumed once it is writable again, so a peer that does not read cannot make
 * the server produce more for it. A connection whose queued outbound bytes pass {@code maxPendingBytes}
 * once a flush has given the socket what it takes (one large answer, or a burst) is closed, counted in
 * {@link Counts#closed} and logged (at most once a minute): a WebSocket with a close frame 1008 (policy
 * violation) queued behind what it has not read, its output ended once that is written (input read and
 * discarded until the peer closes) and closed after {@value #CLOSE_GRACE_MILLIS} ms at the latest; any other
 * at once. Writes after that are refused, reads discarded. Event-loop confined.
 *
 * <p>A connection may also be read slowly ({@link #readSlowly}): one socket read of one buffer every
 * {@value #SLOW_READ_MILLIS} ms instead of reading as its data comes, for a peer whose requests wait for a
 * window to open on this side (counted in {@link Counts#slowed}).
 *
 * <p>Handlers that read on demand (auto-read off, one request at a time) keep their own reads: this one
 * turns reading back on only where it turned it off.
 */
public final class WriteLimit extends ChannelDuplexHandler {

    /** What {@code server.max_pending_write_bytes} is when nothing sets it (and for outbound connections). */
    public static final int DEFAULT_MAX_PENDING = 4 * 1024 * 1024;
    /** How long a WebSocket closed for not reading has to read its close frame. */
    static final long CLOSE_GRACE_MILLIS = 5000;
    private static final int HIGH = 64 * 1024;
    /** How often a slowed connection is read. */
    static final long SLOW_READ_MILLIS = 20;
    private static final Logger LOG = LoggerFactory.getLogger(WriteLimit.class);

    /** The counts the connections of one server (or adapter) share. Thread-safe. */
    public static final class Counts {
        /** Connections closed because their queued outbound bytes passed the limit. */
        public final LongAdder closed = new LongAdder();
        /** Times reading a connection was paused because it was unwritable. */
        public final LongAdder paused = new LongAdder();
        /** Times reading a connection was slowed because what it asked for waits for a window to open. */
        public final LongAdder slowed = new LongAdder();
        private final FailureLog log = FailureLog.warning(LOG, Duration.ofSeconds(60));
    }

    private final long maxPending;
    private final Counts counts;
    /** Reading was turned off here (it was on) while the connection is unwritable. */
    private boolean paused;
    /** Past the limit: only the close frame may still be written. */
    private boolean closing;
    private boolean lettingClose;
    /** Read slowly: auto-read off, {@link #ticker} reading once a tick. */
    private boolean slow;
    private @Nullable ScheduledFuture<?> ticker;
    /** The allocator's messages per read before it was slowed (restored after). */
    private int readsPerLoop;

    public WriteLimit(long maxPendingBytes, Counts counts) {
        this.maxPending = maxPendingBytes;
        this.counts = counts;
    }

    /** The watermarks for a limit: high 64 KiB (Netty's default), or half the limit when that is less; low half the high. */
    public static WriteBufferWaterMark waterMark(long maxPendingBytes) {
        int high = (int) Math.min(HIGH, Math.max(2, maxPendingBytes / 2));
        return new WriteBufferWaterMark(high / 2, high);
    }

    /**
     * Reads {@code ch} as its data comes from now on (auto-read on), but not while it is unwritable: for a
     * connection that read on demand until now (an HTTP connection upgraded to a WebSocket).
     */
    public static void readFreely(Channel ch) {
        WriteLimit limit = ch.pipeline().get(WriteLimit.class);
        if (limit != null && !ch.isWritable()) {
            limit.pause(ch);
        } else {
            ch.config().setAutoRead(true);
        }
    }

    /**
     * Reads {@code ch} slowly ({@code true}: one buffer every {@value #SLOW_READ_MILLIS} ms, and not while it is
     * unwritable) or as its data comes again; from any thread. A channel without a {@code WriteLimit} is left as
     * it is.
     */
    public static void readSlowly(Channel ch, boolean slow) {
        if (!ch.eventLoop().inEventLoop()) {
            ch.eventLoop().execute(() -> readSlowly(ch, slow));
            return;
        }
        WriteLimit limit = ch.pipeline().get(WriteLimit.class);
        if (limit != null) {
            limit.slow(ch, slow);
        }
    }

    private void slow(Channel ch, boolean on) {
        if (on == slow || closing) {
            return;
        }
        slow = on;
        RecvByteBufAllocator alloc = ch.config().getRecvByteBufAllocator();
        MaxMessagesRecvByteBufAllocator reads = alloc instanceof MaxMessagesRecvByteBufAllocator m ? m : null;
        if (on) {
            counts.slowed.increment();
            ch.config().setAutoRead(false);
            if (reads != null) {
                readsPerLoop = reads.maxMessagesPerRead();
                reads.maxMessagesPerRead(1);
            }
            ticker = ch.eventLoop().scheduleAtFixedRate(() -> tick(ch), SLOW_READ_MILLIS, SLOW_READ_MILLIS,
                    TimeUnit.MILLISECONDS);
            return;
        }
        stopTicking();
        if (reads != null && readsPerLoop > 0) {
            reads.maxMessagesPerRead(readsPerLoop);
        }
        if (!paused && ch.isActive()) {
            ch.config().setAutoRead(true);
        }
    }

    private void tick(Channel ch) {
        if (!ch.isActive() || closing) {
            stopTicking();
        } else if (!paused) {
            ch.read();
        }
    }

    private void stopTicking() {
        ScheduledFuture<?> t = ticker;
        if (t != null) {
            t.cancel(false);
            ticker = null;
        }
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) throws Exception {
        stopTicking();
        super.channelInactive(ctx);
    }

    /** The byte limit of {@code ch}'s queued output: its {@code WriteLimit}'s, else {@link #DEFAULT_MAX_PENDING}. */
    public static long maxPending(Channel ch) {
        WriteLimit limit = ch.pipeline().get(WriteLimit.class);
        return limit == null ? DEFAULT_MAX_PENDING : limit.maxPending;
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        ctx.channel().config().setWriteBufferWaterMark(waterMark(maxPending));
    }

    @Override
    public void channelWritabilityChanged(ChannelHandlerContext ctx) throws Exception {
        Channel ch = ctx.channel();
        if (!ch.isWritable()) {
            if (ch.config().isAutoRead() || (slow && !paused)) {
                pause(ch);
            }
        } else if (paused && !closing) {
            paused = false;
            if (!slow) {
                ch.config().setAutoRead(true);
            }
        }
        super.channelWritabilityChanged(ctx);
    }

    private void pause(Channel ch) {
        paused = true;
        counts.paused.increment();
        ch.config().setAutoRead(false);
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (closing) { // closed for not reading: what it still sends is not looked at
            ReferenceCountUtil.release(msg);
            return;
        }
        ctx.fireChannelRead(msg);
    }

    @Override
    public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
        if (closing && !lettingClose) {
            ReferenceCountUtil.release(msg);
            promise.tryFailure(new ClosedChannelException());
            return;
        }
        ctx.write(msg, promise);
    }

    /** Checks, once the socket has taken what it would, what is left queued. */
    @Override
    public void flush(ChannelHandlerContext ctx) {
        ctx.flush();
        if (closing) {
            return;
        }
        ChannelOutboundBuffer out = ctx.channel().unsafe().outboundBuffer();
        long pending = out == null ? 0 : out.totalPendingWriteBytes();
        if (pending > maxPending) {
            overflow(ctx, pending);
        }
    }

    private void overflow(ChannelHandlerContext ctx, long pending) {
        closing = true;
        stopTicking();
        Channel ch = ctx.channel();
        ch.config().setAutoRead(false);
        counts.closed.increment();
        counts.log.warn("Closed connection {}: it does not read what it is sent ({} bytes queued, over "
                + "server.max_pending_write_bytes {}); warned at most once a minute", ch.remoteAddress(), pending, maxPending);
        if (ctx.pipeline().get(WebSocketFrameEncoder.class) == null) {
            ctx.close();
            return;
        }
        lettingClose = true;
        try {
            ch.writeAndFlush(new CloseWebSocketFrame(WebSocketCloseStatus.POLICY_VIOLATION,
                    "not reading: over " + maxPending + " bytes queued")).addListener((ChannelFutureListener) f -> {
                if (f.isSuccess() && ch instanceof DuplexChannel duplex) {
                    // the close frame is out: end the output after it (not a reset, which could lose it), and
                    // read (discarding) until the peer closes its side
                    duplex.shutdownOutput();
                    ch.config().setAutoRead(true);
                } else {
                    ch.close();
                }
            });
        } finally {
            lettingClose = false;
        }
        ctx.executor().schedule(() -> {
            ch.close();
        }, CLOSE_GRACE_MILLIS, TimeUnit.MILLISECONDS);
    }
}
