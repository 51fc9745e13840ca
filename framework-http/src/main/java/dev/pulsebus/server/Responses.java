package dev.pulsebus.server;

import com.fasterxml.jackson.core.JsonGenerator;
import dev.pulsebus.internal.JsonStreaming;
import dev.pulsebus.transcript.TranscriptRecord;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufOutputStream;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.util.AsciiString;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.jspecify.annotations.Nullable;

/** Building and writing the server's responses: JSON bodies, error bodies, keep-alive or close. */
final class Responses {

    static final AsciiString JSON = AsciiString.cached("application/json; charset=utf-8");

    private static final byte[] MESSAGES_OPEN = "{\"messages\":[".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] MESSAGES_CLOSE = "]}".getBytes(StandardCharsets.US_ASCII);

    private Responses() {
    }

    /** Writes {@code body} (taken over: released by Netty) and closes the connection unless kept alive. */
    static ChannelFuture write(ChannelHandlerContext ctx, HttpResponseStatus status, @Nullable CharSequence contentType,
                               ByteBuf body, boolean keepAlive) {
        return write(ctx, status, contentType, body, keepAlive, null, null);
    }

    /** {@link #write} with one more header ({@code Allow}, {@code WWW-Authenticate}); none when it is null. */
    static ChannelFuture write(ChannelHandlerContext ctx, HttpResponseStatus status, @Nullable CharSequence contentType,
                               ByteBuf body, boolean keepAlive, @Nullable CharSequence header, @Nullable String value) {
        ChannelFuture f = send(ctx, status, contentType, body, keepAlive, header, value);
        if (!keepAlive) {
            f.addListener(ChannelFutureListener.CLOSE);
        }
        return f;
    }

    /** Writes the response, saying {@code Connection: close} unless kept alive, and leaves the connection open. */
    private static ChannelFuture send(ChannelHandlerContext ctx, HttpResponseStatus status,
                                      @Nullable CharSequence contentType, ByteBuf body, boolean keepAlive,
                                      @Nullable CharSequence header, @Nullable String value) {
        FullHttpResponse res = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, status, body);
        if (header != null) {
            res.headers().set(header, value);
        }
        return send(ctx, res, contentType, keepAlive);
    }

    /**
     * {@link #write} with {@code headers} besides the type and length (the console's, which carry several:
     * {@code Cache-Control}, {@code Content-Security-Policy}, ...).
     */
    static ChannelFuture write(ChannelHandlerContext ctx, HttpResponseStatus status, CharSequence contentType,
                               ByteBuf body, boolean keepAlive, HttpHeaders headers) {
        FullHttpResponse res = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, status, body);
        res.headers().set(headers);
        ChannelFuture f = send(ctx, res, contentType, keepAlive);
        if (!keepAlive) {
            f.addListener(ChannelFutureListener.CLOSE);
        }
        return f;
    }

    /** An error as {@link #error} writes it, with {@code headers}. */
    static void error(ChannelHandlerContext ctx, HttpResponseStatus status, String message, boolean keepAlive,
                      HttpHeaders headers) {
        write(ctx, status, JSON, errorBody(status, message), keepAlive, headers);
    }

    private static ChannelFuture send(ChannelHandlerContext ctx, FullHttpResponse res,
                                      @Nullable CharSequence contentType, boolean keepAlive) {
        if (contentType != null) {
            res.headers().set(HttpHeaderNames.CONTENT_TYPE, contentType);
        }
        res.headers().setInt(HttpHeaderNames.CONTENT_LENGTH, res.content().readableBytes());
        if (!keepAlive) {
            res.headers().set(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE);
        }
        return ctx.writeAndFlush(res);
    }

    /** JSON already written: {@code body} is taken over (released by Netty). */
    static void json(ChannelHandlerContext ctx, HttpResponseStatus status, ByteBuf body, boolean keepAlive) {
        write(ctx, status, JSON, body, keepAlive);
    }

    static void error(ChannelHandlerContext ctx, HttpResponseStatus status, String message, boolean keepAlive) {
        error(ctx, status, message, keepAlive, null, null);
    }

    /** An error with one more header, e.g. {@code Allow} on a 405. */
    static void error(ChannelHandlerContext ctx, HttpResponseStatus status, String message, boolean keepAlive,
                      @Nullable CharSequence header, @Nullable String value) {
        write(ctx, status, JSON, errorBody(status, message), keepAlive, header, value);
    }

    /**
     * An error refusing a request that may not have been read to its end (malformed, oversized, late),
     * then the connection closed lingeringly ({@link ServerInitializer.Linger}): a client still sending
     * reads this answer instead of a reset.
     */
    static void refuse(ChannelHandlerContext ctx, HttpResponseStatus status, String message) {
        send(ctx, status, JSON, errorBody(status, message), false, null, null)
                .addListener(ServerInitializer.Linger.AFTER_REFUSAL);
    }

    private static ByteBuf errorBody(HttpResponseStatus status, String message) {
        return Unpooled.wrappedBuffer(write(g -> {
            g.writeStartObject();
            g.writeStringField("error", message);
            g.writeNumberField("status", status.code());
            g.writeEndObject();
        }));
    }

    static void empty(ChannelHandlerContext ctx, HttpResponseStatus status, boolean keepAlive) {
        write(ctx, status, null, Unpooled.EMPTY_BUFFER, keepAlive);
    }

    /**
     * One chat-API message: {@code {"id","seq","room","user","text","time"}}, written without a tree into a
     * buffer for {@code ctx} (the caller's to release, or to hand to {@link #json}).
     */
    static ByteBuf message(ChannelHandlerContext ctx, TranscriptRecord r) {
        return write(bufferFor(ctx, 256), g -> writeMessage(g, r, new char[IsoInstant.MAX_LENGTH]));
    }

    /**
     * {@code {"messages": [...]}}, oldest first, written without a tree straight into a buffer for
     * {@code ctx} (the caller's to release, or to hand to {@link #json}): a history of 50 is some 6 KB,
     * which a byte array would have held twice over, once growing and once copied.
     */
    static ByteBuf messages(ChannelHandlerContext ctx, List<TranscriptRecord> records) {
        char[] time = new char[IsoInstant.MAX_LENGTH]; // one for the whole list
        // A short message is about 150 bytes: the buffer seldom grows.
        return write(bufferFor(ctx, 32 + 160 * records.size()), g -> {
            g.writeStartObject();
            g.writeArrayFieldStart("messages");
            for (TranscriptRecord r : records) {
                writeMessage(g, r, time);
            }
            g.writeEndArray();
            g.writeEndObject();
        });
    }

    /**
     * One chat-API message as {@link #message(ChannelHandlerContext, TranscriptRecord)} writes it, as bytes
     * (to be kept and copied into answers).
     */
    static byte[] message(TranscriptRecord r) {
        return write(g -> writeMessage(g, r, new char[IsoInstant.MAX_LENGTH]));
    }

    /**
     * {@code {"messages": [...]}} of messages already written by {@link #message(TranscriptRecord)}: the
     * same bytes {@link #messages} writes, copied.
     */
    static ByteBuf messagesWritten(ChannelHandlerContext ctx, List<byte[]> written) {
        int size = MESSAGES_OPEN.length + MESSAGES_CLOSE.length + written.size(); // a comma each, at most
        for (byte[] m : written) {
            size += m.length;
        }
        ByteBuf buf = bufferFor(ctx, size);
        buf.writeBytes(MESSAGES_OPEN);
        for (int i = 0; i < written.size(); i++) {
            if (i > 0) {
                buf.writeByte(',');
            }
            buf.writeBytes(written.get(i));
        }
        return buf.writeBytes(MESSAGES_CLOSE);
    }

    /**
     * A buffer of the channel's allocator: its preferred kind (direct) on the channel's own event loop,
     * where the allocator keeps a cache per thread; a heap one elsewhere (a virtual thread, the transcript
     * writer), which the event loop copies into a direct one as it writes, as it did with byte arrays.
     */
    private static ByteBuf bufferFor(ChannelHandlerContext ctx, int sizeHint) {
        return ctx.executor().inEventLoop() ? ctx.alloc().buffer(sizeHint) : ctx.alloc().heapBuffer(sizeHint);
    }

    /**
     * {@code /health}'s body, written without a tree (it is the most asked-for path). Components as Spring Boot
     * writes them, {@code "storage": {"status": "UP"}}, with {@code "details": {"error": ...}} when {@code error}
     * is given (for a client the token admits); {@code error} also stays at the top level, where it was first.
     * {@code unlistedBots}: by platform, how many bots it knows past those in {@code platforms}; {@code warnings}:
     * what is weak in the configuration, as {@code "warnings": [...]} when there is any.
     */
    static byte[] health(String status, String instance, String version, long uptimeSeconds, long received,
                         long handled, boolean storageUp, boolean transcriptsUp, boolean httpUp,
                         java.util.Map<String, Boolean> platforms, java.util.Map<String, Integer> unlistedBots,
                         java.util.@Nullable Map<String, Object> cluster, java.util.List<String> warnings,
                         @Nullable String error) {
        return write(g -> {
            g.writeStartObject();
            g.writeStringField("status", status);
            g.writeStringField("instance", instance);
            g.writeStringField("version", version);
            g.writeNumberField("uptime_s", uptimeSeconds);
            g.writeObjectFieldStart("events");
            g.writeNumberField("received", received);
            g.writeNumberField("handled", handled);
            g.writeEndObject();
            g.writeObjectFieldStart("components");
            component(g, "storage", storageUp, error);
            component(g, "transcripts", transcriptsUp, null);
            component(g, "http", httpUp, null);
            for (java.util.Map.Entry<String, Boolean> p : platforms.entrySet()) {
                component(g, p.getKey(), p.getValue(), null);
            }
            if (cluster != null) {
                g.writeStringField("cluster", String.valueOf(cluster.get("status")));
            }
            g.writeEndObject();
            if (!unlistedBots.isEmpty()) { // by platform: the bots an adapter knows past those it names
                g.writeObjectFieldStart("unlisted_bots");
                for (java.util.Map.Entry<String, Integer> e : unlistedBots.entrySet()) {
                    g.writeNumberField(e.getKey(), e.getValue());
                }
                g.writeEndObject();
            }
            if (cluster != null) { // engine connections and partitions held
                g.writeObjectFieldStart("cluster");
                for (java.util.Map.Entry<String, Object> e : cluster.entrySet()) {
                    if (e.getValue() instanceof Number n) {
                        g.writeNumberField(e.getKey(), n.longValue());
                    } else {
                        g.writeStringField(e.getKey(), String.valueOf(e.getValue()));
                    }
                }
                g.writeEndObject();
            }
            if (!warnings.isEmpty()) {
                g.writeArrayFieldStart("warnings");
                for (String w : warnings) {
                    g.writeString(w);
                }
                g.writeEndArray();
            }
            if (error != null) {
                g.writeStringField("error", error);
            }
            g.writeEndObject();
        });
    }

    private static void component(JsonGenerator g, String name, boolean up, @Nullable String error) throws IOException {
        g.writeObjectFieldStart(name);
        g.writeStringField("status", up ? "UP" : "DOWN");
        if (error != null) {
            g.writeObjectFieldStart("details");
            g.writeStringField("error", error);
            g.writeEndObject();
        }
        g.writeEndObject();
    }

    /** One message; {@code time} is scratch space for its time's text. */
    private static void writeMessage(JsonGenerator g, TranscriptRecord r, char[] time) throws IOException {
        g.writeStartObject();
        g.writeStringField("id", r.messageId());
        g.writeNumberField("seq", r.seq());
        g.writeStringField("room", r.chat().id());
        g.writeStringField("user", r.userId());
        g.writeStringField("text", r.text());
        int n = IsoInstant.write(r.time(), time);
        g.writeFieldName("time");
        if (n >= 0) {
            g.writeString(time, 0, n);
        } else {
            g.writeString(r.time().toString());
        }
        g.writeEndObject();
    }

    /** A JSON body, written by a streaming generator (no tree). */
    interface Body {
        void write(JsonGenerator g) throws IOException;
    }

    /** {@code body} as bytes. */
    static byte[] write(Body body) {
        ByteArrayOutputStream out = new ByteArrayOutputStream(256);
        write(out, body);
        return out.toByteArray();
    }

    /** {@code body} written into {@code buf}, which is released if that fails. */
    private static ByteBuf write(ByteBuf buf, Body body) {
        try {
            write(new ByteBufOutputStream(buf), body);
            return buf;
        } catch (RuntimeException | Error e) {
            buf.release();
            throw e;
        }
    }

    private static void write(OutputStream out, Body body) {
        try (JsonGenerator g = JsonStreaming.FACTORY.createGenerator(out)) {
            body.write(g);
        } catch (IOException e) {
            throw new IllegalStateException("cannot write JSON: " + e.getMessage(), e);
        }
    }
}
