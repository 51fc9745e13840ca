package dev.pulsebus.onebot;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.http.websocketx.BinaryWebSocketFrame;
import io.netty.handler.codec.http.websocketx.CloseWebSocketFrame;
import io.netty.handler.codec.http.websocketx.ContinuationWebSocketFrame;
import io.netty.handler.codec.http.websocketx.PingWebSocketFrame;
import io.netty.handler.codec.http.websocketx.PongWebSocketFrame;
import io.netty.handler.codec.http.websocketx.TextWebSocketFrame;
import io.netty.handler.codec.http.websocketx.WebSocketCloseStatus;
import io.netty.handler.codec.http.websocketx.WebSocketFrame;
import io.netty.util.ReferenceCountUtil;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The WebSocket messages of one OneBot connection: a text message (one frame, or a frame and its
 * continuations) of at most {@code maxBytes} goes to the adapter; a longer one is dropped as it comes
 * (never held whole) and counted, as is a binary one (OneBot's MessagePack form is not spoken), and the
 * connection stays up. A text message that is not UTF-8 fails the connection with 1007 (RFC 6455, 8.1).
 * Pings are answered, only the latest while the connection is unwritable; a close frame closes. When the
 * connection is writable again, the actions waiting for it go out ({@link WsConnection#writable}).
 * Event-loop confined.
 */
final class FrameHandler extends ChannelInboundHandlerAdapter {

    private static final Logger LOG = LoggerFactory.getLogger(FrameHandler.class);

    /** Where complete messages go. */
    interface Sink {
        /** Takes a text message; false when it is not UTF-8 (the connection is then failed with 1007). */
        boolean message(WsConnection connection, ByteBuf text);

        void closed(WsConnection connection);
    }

    private final WsConnection connection;
    private final Sink sink;
    private final OneBotMetrics metrics;
    private final int maxBytes;
    private @Nullable ByteBuf assembling;
    private boolean inMessage;
    private boolean dropping;
    private boolean binary;
    private long dropped;
    private boolean failed;
    /** The payload of the latest ping not answered yet (while the connection was unwritable); -1: none. */
    private final byte[] ping = new byte[125];
    private int pingLength = -1;

    FrameHandler(WsConnection connection, Sink sink, OneBotMetrics metrics, int maxBytes) {
        this.connection = connection;
        this.sink = sink;
        this.metrics = metrics;
        this.maxBytes = maxBytes;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (!(msg instanceof WebSocketFrame frame)) {
            ctx.fireChannelRead(msg);
            return;
        }
        if (failed) {
            frame.release();
            return;
        }
        try {
            switch (frame) {
                case TextWebSocketFrame t -> begin(ctx, t, false);
                case BinaryWebSocketFrame b -> begin(ctx, b, true);
                case ContinuationWebSocketFrame c -> {
                    if (inMessage) {
                        part(ctx, c.content(), c.isFinalFragment());
                    }
                }
                case PingWebSocketFrame p -> ping(ctx, p.content());
                case CloseWebSocketFrame c -> ctx.writeAndFlush(new CloseWebSocketFrame(c.statusCode(), ""))
                        .addListener(ChannelFutureListener.CLOSE);
                case PongWebSocketFrame p -> { }
                default -> { }
            }
        } finally {
            ReferenceCountUtil.release(frame);
        }
    }

    private void begin(ChannelHandlerContext ctx, WebSocketFrame first, boolean isBinary) {
        reset();
        inMessage = true;
        binary = isBinary;
        if (first.isFinalFragment() && !binary && first.content().readableBytes() <= maxBytes) {
            inMessage = false;
            deliver(ctx, first.content()); // the common case: one frame, no copy
            return;
        }
        part(ctx, first.content(), first.isFinalFragment());
    }

    private void part(ChannelHandlerContext ctx, ByteBuf content, boolean last) {
        int n = content.readableBytes();
        if (!dropping && !binary) {
            ByteBuf acc = assembling;
            int held = acc == null ? 0 : acc.readableBytes();
            if (held + (long) n > maxBytes) {
                dropping = true;
                dropped = held;
                release();
            } else {
                if (acc == null) {
                    acc = assembling = ctx.alloc().buffer(Math.min(maxBytes, Math.max(256, n * 2)));
                }
                acc.writeBytes(content);
            }
        }
        if (dropping || binary) {
            dropped += n;
        }
        if (last) {
            if (binary) {
                metrics.bad(OneBotMetrics.Bad.BINARY, "a binary message of " + dropped + " bytes");
            } else if (dropping) {
                metrics.bad(OneBotMetrics.Bad.OVERSIZED, "a message of " + dropped + " bytes, over max_frame_bytes "
                        + maxBytes);
            } else if (assembling != null) {
                try {
                    deliver(ctx, assembling);
                } finally {
                    release();
                }
            }
            reset();
        }
    }

    private void deliver(ChannelHandlerContext ctx, ByteBuf text) {
        if (!sink.message(connection, text)) {
            failed = true; // what follows is not looked at
            ctx.channel().config().setAutoRead(false);
            ctx.writeAndFlush(new CloseWebSocketFrame(WebSocketCloseStatus.INVALID_PAYLOAD_DATA, "a text message that is not UTF-8"))
                    .addListener(ChannelFutureListener.CLOSE);
        }
    }

    /**
     * Answers a ping now while the connection is writable; while it is not, only the latest ping is kept, and
     * answered once it is (RFC 6455, 5.5.3), so a peer that pings and does not read gets no queue of pongs.
     */
    private void ping(ChannelHandlerContext ctx, ByteBuf payload) {
        if (ctx.channel().isWritable()) {
            pingLength = -1; // this one is the latest
            ctx.writeAndFlush(new PongWebSocketFrame(payload.retain()));
            return;
        }
        pingLength = Math.min(payload.readableBytes(), ping.length); // a control frame's payload is at most 125
        payload.getBytes(payload.readerIndex(), ping, 0, pingLength);
    }

    @Override
    public void channelWritabilityChanged(ChannelHandlerContext ctx) throws Exception {
        if (ctx.channel().isWritable()) {
            if (pingLength >= 0) {
                ctx.writeAndFlush(new PongWebSocketFrame(Unpooled.copiedBuffer(ping, 0, pingLength)));
                pingLength = -1;
            }
            connection.writable();
        }
        super.channelWritabilityChanged(ctx);
    }

    private void reset() {
        release();
        inMessage = false;
        dropping = false;
        binary = false;
        dropped = 0;
    }

    private void release() {
        if (assembling != null) {
            assembling.release();
            assembling = null;
        }
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) throws Exception {
        reset();
        sink.closed(connection);
        super.channelInactive(ctx);
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        LOG.debug("OneBot connection {} failed: {}", ctx.channel().remoteAddress(), cause.toString());
        ctx.close();
    }
}
