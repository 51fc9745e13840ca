package dev.pulsebus.telegram;

import dev.pulsebus.internal.Json;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.util.Base64;

/** The webhook's wire: the secret header and the answers. Stateless. */
final class Webhook {

    static final String SECRET_HEADER = "X-Telegram-Bot-Api-Secret-Token";
    private static final SecureRandom RANDOM = new SecureRandom();
    private static final byte[] OK = "{\"ok\":true}".getBytes(StandardCharsets.UTF_8);

    private Webhook() {
    }

    /** A {@code secret_token} for one run: 43 characters of {@code A-Z a-z 0-9 _ -}, 256 random bits. */
    static String randomSecret() {
        byte[] bits = new byte[32];
        RANDOM.nextBytes(bits);
        return Base64.getUrlEncoder().withoutPadding().encodeToString(bits);
    }

    static void ok(ChannelHandlerContext ctx, boolean keepAlive) {
        write(ctx, HttpResponseStatus.OK, OK, keepAlive);
    }

    static void answer(ChannelHandlerContext ctx, FullHttpRequest request, HttpResponseStatus status, String why) {
        byte[] body = Json.MAPPER.createObjectNode().put("ok", false).put("error_code", status.code())
                .put("description", why).toString().getBytes(StandardCharsets.UTF_8);
        write(ctx, status, body, HttpUtil.isKeepAlive(request));
    }

    private static void write(ChannelHandlerContext ctx, HttpResponseStatus status, byte[] body, boolean keepAlive) {
        FullHttpResponse r = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, status, Unpooled.wrappedBuffer(body));
        r.headers().set(HttpHeaderNames.CONTENT_TYPE, HttpHeaderValues.APPLICATION_JSON)
                .setInt(HttpHeaderNames.CONTENT_LENGTH, body.length);
        if (keepAlive) {
            r.headers().set(HttpHeaderNames.CONNECTION, HttpHeaderValues.KEEP_ALIVE);
            ctx.writeAndFlush(r);
        } else {
            ctx.writeAndFlush(r).addListener(ChannelFutureListener.CLOSE);
        }
    }
}
