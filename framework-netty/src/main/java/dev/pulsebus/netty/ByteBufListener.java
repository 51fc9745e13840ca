package dev.pulsebus.netty;

import dev.pulsebus.platform.WebSocketListener;
import dev.pulsebus.platform.WebSocketSession;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.nio.ByteBuffer;

/**
 * A {@link WebSocketListener} that takes a text message as the Netty buffer it arrived in: an adapter that reads
 * Netty's buffers itself is handed them by {@link WebSocketMessages} with no view or wrapper made per message.
 * Any other server hands it the neutral {@link ByteBuffer}, wrapped.
 */
public interface ByteBufListener extends WebSocketListener {

    /** As {@link WebSocketListener#text}: valid only until this returns, not to be released or written to. */
    boolean text(WebSocketSession session, ByteBuf message);

    @Override
    default boolean text(WebSocketSession session, ByteBuffer message) {
        return text(session, Unpooled.wrappedBuffer(message));
    }
}
