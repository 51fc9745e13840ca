package dev.pulsebus.netty;

import dev.pulsebus.platform.WebSocketListener;

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
 * The messages of one WebSocket connection, for its {@link WebSocketListener}: a text message (one frame, or
 * a frame and its continuations) of at most {@code maxBytes} goes to the listener; a longer one is dropped
 * as it comes (never held whole) and reported ({@link WebSocketListener#dropped}), as is a binary one, and
 * the connection stays up. A text message the listener finds is not UTF-8 (it returns false) fails the connection with 1007
 * (RFC 6455, 8.1). Pings are answered, only the latest while the connection is unwritable; a close frame
 * closes. The listener hears when the connection is writable again, and when it closes. Event-loop
 * confined; the listener's {@link WebSocketListener#opened} is the caller's to call (after the handshake).
 */
public final class WebSocketMessages extends ChannelInboundHandlerAdapter {

    private static final Logger LOG = LoggerFactory.getLogger(WebSocketMessages.class);

    private final ChannelSession session;
    private final WebSocketListener listener;
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

    /** Messages of {@code session}'s channel, of at most {@code maxBytes}, to {@code listener}. */
    public WebSocketMessages(ChannelSession session, WebSocketListener listener, int maxBytes) {
        this.session = session;
        this.listener = listener;
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
            if (binary || dropping) {
                listener.dropped(session, binary, dropped);
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
        boolean utf8 = listener instanceof ByteBufListener direct ? direct.text(session, text)
                : listener.text(session, text.nioBuffer());
        if (!utf8) {
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
            listener.writable(session);
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
        listener.closed(session);
        super.channelInactive(ctx);
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        LOG.debug("WebSocket {} failed: {}", ctx.channel().remoteAddress(), cause.toString());
        ctx.close();
    }
}
