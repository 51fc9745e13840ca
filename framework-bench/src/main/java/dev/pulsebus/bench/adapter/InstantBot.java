package dev.pulsebus.bench.adapter;

import dev.pulsebus.bench.http.NoopServer;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.codec.http.websocketx.TextWebSocketFrame;
import io.netty.handler.codec.http.websocketx.WebSocketServerProtocolConfig;
import io.netty.handler.codec.http.websocketx.WebSocketServerProtocolHandler;
import java.net.InetSocketAddress;
import java.net.URI;
import java.util.concurrent.TimeUnit;

/**
 * The do-nothing bot: a WebSocket endpoint on the same Netty transport and codec as PulseBus's that answers
 * each group message at once with the {@code send_group_msg} PulseBus would send (made from the message's
 * bytes, no JSON parsed) and drops the responses. {@link OneBotLoad} against it measures what the
 * implementation's side, the WebSocket codec and loopback cost on their own: the floor of the socket rows.
 */
final class InstantBot implements AutoCloseable {

    static final String PATH = "/onebot/v11/ws";

    private final EventLoopGroup group;
    private final Channel listener;

    InstantBot() throws InterruptedException {
        group = NoopServer.loops();
        listener = NoopServer.listen(group, new ChannelInitializer<SocketChannel>() {
            @Override
            protected void initChannel(SocketChannel ch) {
                ch.pipeline().addLast(new HttpServerCodec(), new HttpObjectAggregator(65536),
                        new WebSocketServerProtocolHandler(WebSocketServerProtocolConfig.newBuilder()
                                .websocketPath(PATH).maxFramePayloadLength(1 << 20)
                                .withUTF8Validator(false) // as PulseBus's endpoint: the floor does no more
                                .build()), new Answer());
            }
        });
    }

    URI uri() {
        return URI.create("ws://127.0.0.1:" + ((InetSocketAddress) listener.localAddress()).getPort() + PATH);
    }

    /** One connection's answers: each event gets its action, with an echo of its own. */
    private static final class Answer extends SimpleChannelInboundHandler<TextWebSocketFrame> {
        private long echo;

        @Override
        protected void channelRead0(ChannelHandlerContext ctx, TextWebSocketFrame frame) {
            ByteBuf in = frame.content();
            if (!V11Frames.isResponse(in)) {
                ctx.write(new TextWebSocketFrame(V11Frames.action(ctx.alloc(), in, ++echo)));
            }
        }

        @Override
        public void channelReadComplete(ChannelHandlerContext ctx) {
            ctx.flush();
        }
    }

    @Override
    public void close() {
        listener.close().awaitUninterruptibly();
        group.shutdownGracefully(0, 1, TimeUnit.SECONDS).awaitUninterruptibly(5, TimeUnit.SECONDS);
    }
}
