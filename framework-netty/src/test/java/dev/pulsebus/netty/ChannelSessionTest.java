package dev.pulsebus.netty;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOutboundHandlerAdapter;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.handler.codec.http.websocketx.WebSocket13FrameEncoder;
import java.io.DataInputStream;
import java.io.IOException;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Messages sent on a real connection from the event loop and from other threads: all flushed, in order. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ChannelSessionTest {

    private final EventLoopGroup group = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
    private final LinkedBlockingQueue<Channel> accepted = new LinkedBlockingQueue<>();
    private final AtomicInteger flushes = new AtomicInteger();
    private Channel server;
    private Socket peer;
    private ChannelSession session;

    @BeforeEach
    void connect() throws Exception {
        server = new ServerBootstrap().group(group).channel(NioServerSocketChannel.class)
                .childHandler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel ch) {
                        ch.pipeline().addLast(new ChannelOutboundHandlerAdapter() {
                            @Override
                            public void flush(ChannelHandlerContext ctx) {
                                flushes.incrementAndGet();
                                ctx.flush();
                            }
                        }, new WebSocket13FrameEncoder(false));
                        accepted.add(ch);
                    }
                }).bind("127.0.0.1", 0).sync().channel();
        peer = new Socket();
        peer.connect(server.localAddress());
        peer.setSoTimeout(10_000); // a message never flushed fails the read
        session = new ChannelSession(accepted.poll(10, TimeUnit.SECONDS));
    }

    @AfterEach
    void close() throws Exception {
        peer.close();
        server.close().sync();
        group.shutdownGracefully(0, 1, TimeUnit.SECONDS).sync();
    }

    @Test
    void messagesFromManyThreadsAllArriveEachThreadsInOrder() throws Exception {
        int threads = 8;
        int each = 2000;
        List<Thread> senders = new ArrayList<>();
        List<CompletableFuture<Void>> last = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            CompletableFuture<Void> done = new CompletableFuture<>();
            last.add(done);
            int thread = t;
            senders.add(Thread.ofPlatform().start(() -> {
                for (int i = 0; i < each; i++) {
                    var sent = session.sendText((thread + ":" + i).getBytes(StandardCharsets.UTF_8));
                    if (i == each - 1) {
                        sent.whenComplete((v, e) -> done.complete(null));
                    }
                }
            }));
        }
        DataInputStream in = new DataInputStream(peer.getInputStream());
        int[] next = new int[threads];
        for (int n = 0; n < threads * each; n++) { // a flush left out leaves the peer waiting here
            String[] m = readText(in).split(":");
            int thread = Integer.parseInt(m[0]);
            assertThat(Integer.parseInt(m[1])).as("thread %d's messages in order", thread).isEqualTo(next[thread]);
            next[thread]++;
        }
        for (Thread t : senders) {
            t.join();
        }
        CompletableFuture.allOf(last.toArray(CompletableFuture[]::new)).get(10, TimeUnit.SECONDS);
    }

    @Test
    void whatIsSentWhileTheLoopIsBusyLeavesInOneOrTwoFlushes() throws Exception {
        CountDownLatch busy = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        session.channel().eventLoop().execute(() -> {
            busy.countDown();
            try {
                release.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        busy.await();
        int before = flushes.get();
        for (int i = 0; i < 100; i++) {
            session.sendText(("m" + i).getBytes(StandardCharsets.UTF_8));
        }
        release.countDown();
        DataInputStream in = new DataInputStream(peer.getInputStream());
        for (int i = 0; i < 100; i++) {
            assertThat(readText(in)).isEqualTo("m" + i);
        }
        // the first write's flush task was queued behind it alone: it runs once more, behind the 99 others
        assertThat(flushes.get() - before).isBetween(1, 2);
        // one sent on the loop itself is flushed at once
        session.channel().eventLoop().submit(() -> session.sendText("on the loop".getBytes(StandardCharsets.UTF_8)));
        assertThat(readText(in)).isEqualTo("on the loop");
    }

    @Test
    void aMessageSentAfterTheConnectionClosedFailsItsStage() throws Exception {
        session.channel().close().sync();
        var stage = session.sendText("late".getBytes(StandardCharsets.UTF_8)).toCompletableFuture();
        assertThatThrownBy(() -> stage.get(10, TimeUnit.SECONDS)).isInstanceOf(ExecutionException.class);
    }

    /** One unmasked text frame as a server writes it (RFC 6455 5.2), its payload as a string. */
    private static String readText(DataInputStream in) throws IOException {
        int op = in.readUnsignedByte();
        assertThat(op).as("FIN and text").isEqualTo(0x81);
        int len = in.readUnsignedByte();
        if (len == 126) {
            len = in.readUnsignedShort();
        }
        byte[] payload = new byte[len];
        in.readFully(payload);
        return new String(payload, StandardCharsets.UTF_8);
    }
}
