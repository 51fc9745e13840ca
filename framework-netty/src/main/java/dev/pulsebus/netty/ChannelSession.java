package dev.pulsebus.netty;

import dev.pulsebus.platform.WebSocketSession;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.handler.codec.http.websocketx.CloseWebSocketFrame;
import io.netty.handler.codec.http.websocketx.TextWebSocketFrame;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ScheduledExecutorService;

/** A {@link WebSocketSession} on a Netty channel whose handshake is done (or about to be). Thread-safe. */
public final class ChannelSession implements WebSocketSession {

    private final Channel channel;

    public ChannelSession(Channel channel) {
        this.channel = channel;
    }

    @Override
    public CompletionStage<Void> sendText(byte[] utf8) {
        CompletableFuture<Void> sent = new CompletableFuture<>();
        channel.writeAndFlush(new TextWebSocketFrame(Unpooled.wrappedBuffer(utf8))).addListener(f -> {
            if (f.isSuccess()) {
                sent.complete(null);
            } else {
                sent.completeExceptionally(f.cause());
            }
        });
        return sent;
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
