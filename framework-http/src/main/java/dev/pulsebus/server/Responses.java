package dev.pulsebus.server;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.pulsebus.internal.Json;
import dev.pulsebus.transcript.TranscriptRecord;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.util.AsciiString;
import java.util.List;

/** Building and writing the server's responses: JSON bodies, error bodies, keep-alive or close. */
final class Responses {

    static final AsciiString JSON = AsciiString.cached("application/json; charset=utf-8");

    private Responses() {
    }

    /** Writes {@code body} (taken over: released by Netty) and closes the connection unless kept alive. */
    static void write(ChannelHandlerContext ctx, HttpResponseStatus status, CharSequence contentType, ByteBuf body,
                      boolean keepAlive) {
        FullHttpResponse res = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, status, body);
        if (contentType != null) {
            res.headers().set(HttpHeaderNames.CONTENT_TYPE, contentType);
        }
        res.headers().setInt(HttpHeaderNames.CONTENT_LENGTH, body.readableBytes());
        if (!keepAlive) {
            res.headers().set(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE);
        }
        var f = ctx.writeAndFlush(res);
        if (!keepAlive) {
            f.addListener(ChannelFutureListener.CLOSE);
        }
    }

    static void json(ChannelHandlerContext ctx, HttpResponseStatus status, Object body, boolean keepAlive) {
        write(ctx, status, JSON, Unpooled.wrappedBuffer(bytes(body)), keepAlive);
    }

    static void error(ChannelHandlerContext ctx, HttpResponseStatus status, String message, boolean keepAlive) {
        ObjectNode body = Json.MAPPER.createObjectNode().put("error", message).put("status", status.code());
        json(ctx, status, body, keepAlive);
    }

    static void empty(ChannelHandlerContext ctx, HttpResponseStatus status, boolean keepAlive) {
        write(ctx, status, null, Unpooled.EMPTY_BUFFER, keepAlive);
    }

    static byte[] bytes(Object body) {
        try {
            return Json.MAPPER.writeValueAsBytes(body);
        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
            throw new IllegalStateException("cannot write JSON: " + e.getMessage(), e);
        }
    }

    /** One chat-API message: {@code {"id","seq","room","user","text","time"}}. */
    static ObjectNode message(TranscriptRecord r) {
        return Json.MAPPER.createObjectNode()
                .put("id", r.messageId())
                .put("seq", r.seq())
                .put("room", r.chat().id())
                .put("user", r.userId())
                .put("text", r.text())
                .put("time", r.time().toString());
    }

    /** {@code {"messages": [...]}}, oldest first. */
    static ObjectNode messages(List<TranscriptRecord> records) {
        ObjectNode body = Json.MAPPER.createObjectNode();
        ArrayNode list = body.putArray("messages");
        for (TranscriptRecord r : records) {
            list.add(message(r));
        }
        return body;
    }
}
