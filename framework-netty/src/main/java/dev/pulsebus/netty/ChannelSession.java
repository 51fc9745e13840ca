package dev.pulsebus.netty;

import dev.pulsebus.platform.WebSocketSession;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.handler.codec.http.websocketx.CloseWebSocketFrame;
import io.netty.handler.codec.http.websocketx.TextWebSocketFrame;
import io.netty.util.concurrent.Future;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A {@link WebSocketSession} on a Netty channel whose handshake is done (or about to be). Thread-safe.
 *
 * <p>Messages sent from other threads than the channel's event loop are written as Netty writes them (queued
 * on the loop, counted against the channel's writability at once) and flushed by one task queued behind them:
 * what handlers send while the loop is busy leaves in one socket write, not one write each.
 */
public final class ChannelSession implements WebSocketSession {

    private final Channel channel;
    /** Messages sent so far, counted after each one's write was queued. */
    private final AtomicLong sent = new AtomicLong();
    /** A flush task is queued on the event loop (one at a time). */
    private final AtomicBoolean flushQueued = new AtomicBoolean();
    /**
     * {@link #sent} when the queued flush task was queued: every write counted in it was queued before the
     * task, and so runs before it. Written before the task is queued, read by it.
     */
    private long flushCovers;
    private final Runnable flush;

    public ChannelSession(Channel channel) {
        this.channel = channel;
        this.flush = this::flushQueuedWrites;
    }

    @Override
    public CompletionStage<Void> sendText(byte[] utf8) {
        CompletableFuture<Void> done = new CompletableFuture<>();
        TextWebSocketFrame frame = new TextWebSocketFrame(Unpooled.wrappedBuffer(utf8));
        if (channel.eventLoop().inEventLoop()) {
            channel.writeAndFlush(frame).addListener(f -> complete(done, f));
            return done;
        }
        channel.write(frame).addListener(f -> complete(done, f));
        long n = sent.incrementAndGet();
        if (flushQueued.compareAndSet(false, true)) {
            queueFlush(n);
        }
        return done;
    }

    private static void complete(CompletableFuture<Void> done, Future<?> f) {
        if (f.isSuccess()) {
            done.complete(null);
        } else {
            done.completeExceptionally(f.cause());
        }
    }

    /** Queues the flush task behind the writes counted up to {@code covers}; the caller set {@link #flushQueued}. */
    private void queueFlush(long covers) {
        flushCovers = covers;
        try {
            channel.eventLoop().execute(flush);
        } catch (RejectedExecutionException e) { // the loop is shutting down, and the channel with it
            flushQueued.set(false);
        }
    }

    /**
     * On the event loop: flushes what was written. A message counted after this task was queued may have its
     * write queued behind it: then the task is queued again, behind that write (unless its sender queued one).
     */
    private void flushQueuedWrites() {
        long covered = flushCovers;
        channel.flush();
        flushQueued.set(false);
        long now = sent.get();
        if (now != covered && flushQueued.compareAndSet(false, true)) {
            queueFlush(now);
        }
    }

    @Override
    public boolean isOpen() {
        return channel.isActive();
    }

    @Override
    public boolean isWritable() {
        return channel.isWritable();
    }

    @Override
    public long maxPendingBytes() {
        return WriteLimit.maxPending(channel);
    }

    @Override
    public void readSlowly(boolean slow) {
        WriteLimit.readSlowly(channel, slow);
    }

    @Override
    public ScheduledExecutorService executor() {
        return channel.eventLoop();
    }

    @Override
    public void close(int code, String reason) {
        if (channel.isActive()) {
            channel.writeAndFlush(new CloseWebSocketFrame(code, reason)).addListener(ChannelFutureListener.CLOSE);
        }
    }

    @Override
    public String remoteAddress() {
        return String.valueOf(channel.remoteAddress());
    }

    /** The channel, for the glue that owns it. */
    public Channel channel() {
        return channel;
    }

    @Override
    public String toString() {
        return "WebSocket " + channel.remoteAddress();
    }
}
