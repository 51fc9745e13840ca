package dev.pulsebus.server;

import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPromise;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpStatusClass;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.util.ReferenceCountUtil;
import java.util.ArrayDeque;

/**
 * One request at a time per connection, right after the HTTP codec: the connection is read on demand
 * (auto-read off), and once a request is whole it is not read again until that request's response is
 * written. So pipelined requests are answered in the order they came (RFC 9112, 9.3.2), a parked long-poll
 * holding the ones behind it, and a client that pipelines without reading its answers stops being read (its
 * unread answers are at most one). The parts of later requests that one read decoded wait here, at most one
 * read's worth. A response that closes the connection ends it: what waits is dropped. An interim
 * {@code 1xx} is not an answer. Event-loop confined.
 */
final class InOrder extends ChannelDuplexHandler {

    /** The parts of requests decoded while one is being answered, in order. */
    private final ArrayDeque<Object> waiting = new ArrayDeque<>();
    /** A whole request has gone on and its response is not written yet. */
    private boolean answering;
    private boolean ended;

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        ctx.channel().config().setAutoRead(false);
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) throws Exception {
        ctx.read();
        super.channelActive(ctx);
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (answering || ended || !waiting.isEmpty()) {
            if (ended) {
                ReferenceCountUtil.release(msg);
            } else {
                waiting.add(msg);
            }
            return;
        }
        pass(ctx, msg);
    }

    private void pass(ChannelHandlerContext ctx, Object msg) {
        if (msg instanceof LastHttpContent) { // a FullHttpRequest is one too
            answering = true;
        }
        ctx.fireChannelRead(msg);
    }

    @Override
    public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) throws Exception {
        if (msg instanceof HttpResponse res && res.status().codeClass() != HttpStatusClass.INFORMATIONAL
                && !HttpUtil.isKeepAlive(res)) {
            end();
        }
        boolean last = msg instanceof LastHttpContent
                && !(msg instanceof HttpResponse res && res.status().codeClass() == HttpStatusClass.INFORMATIONAL);
        if (last && answering && !ended) {
            promise = promise.unvoid();
            promise.addListener((ChannelFutureListener) f -> answered(ctx));
        }
        ctx.write(msg, promise);
    }

    /** The response is written: the next request that waits goes on, or the connection is read for one. */
    private void answered(ChannelHandlerContext ctx) {
        answering = false;
        if (ended || !ctx.channel().isActive()) {
            return;
        }
        while (!answering) {
            Object next = waiting.poll();
            if (next == null) {
                ctx.read(); // nothing is queued for it now: its answer is written
                return;
            }
            pass(ctx, next);
        }
    }

    private void end() {
        ended = true;
        release();
    }

    private void release() {
        for (Object o; (o = waiting.poll()) != null; ) {
            ReferenceCountUtil.release(o);
        }
    }

    @Override
    public void handlerRemoved(ChannelHandlerContext ctx) {
        release();
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) throws Exception {
        release();
        super.channelInactive(ctx);
    }
}
