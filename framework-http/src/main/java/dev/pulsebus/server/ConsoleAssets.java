package dev.pulsebus.server;

import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.http.DefaultHttpHeaders;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.util.AsciiString;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * The browser console's page and files, served from the jar: {@code /} is its page, {@code /console/<file>}
 * its style sheet, its JavaScript modules and its icon. Nothing comes from another origin (no CDN, no web
 * font). The files are read once, on the first request, so a server nobody opens in a browser never
 * reads them; each answer then wraps the same bytes without copying.
 *
 * <p>Every answer carries a {@code Content-Security-Policy} that admits scripts, styles, images and
 * connections from this origin only and no inline script or style, so even text that reached the page as
 * HTML could not run; the page renders messages as text anyway. {@code Cache-Control: no-cache} makes a
 * browser revalidate after a server upgrade instead of mixing old and new modules.
 */
final class ConsoleAssets {

    /**
     * The page's policy: its own origin only, no inline code, not framed, no form posts elsewhere; it frames
     * its own origin's pages (a profile's flame graph, which runs sandboxed).
     */
    static final String CSP = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; "
            + "connect-src 'self'; frame-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

    private static final String DIR = "dev/pulsebus/server/console/";
    /** The files under {@code /console/}; {@code index.html} is also {@code /}. */
    static final List<String> FILES = List.of("index.html", "console.css", "console.js", "api.js", "chat.js",
            "live.js", "charts.js", "admin.js", "profile.js", "icon.svg");

    private static final Map<String, AsciiString> TYPES = Map.of(
            "html", AsciiString.cached("text/html; charset=utf-8"),
            "css", AsciiString.cached("text/css; charset=utf-8"),
            "js", AsciiString.cached("text/javascript; charset=utf-8"),
            "svg", AsciiString.cached("image/svg+xml"));

    private static final HttpHeaders HEADERS = new DefaultHttpHeaders()
            .set(HttpHeaderNames.CONTENT_SECURITY_POLICY, CSP)
            .set("X-Content-Type-Options", "nosniff")
            .set("Referrer-Policy", "no-referrer")
            .set(HttpHeaderNames.CACHE_CONTROL, "no-cache");

    /** One file: its bytes and content type. */
    @SuppressWarnings("ArrayRecordComponent") // written as they are; never compared
    private record Asset(byte[] bytes, AsciiString type) {
    }

    private final CountedResponses out;
    /** By URL path; read on the first request. */
    private volatile @Nullable Map<String, Asset> assets;

    ConsoleAssets(CountedResponses out) {
        this.out = out;
    }

    /** True when {@code path} is the page or one of its files. */
    static boolean serves(String path) {
        return path.equals("/") || path.startsWith("/console/");
    }

    /** Answers a request for {@code path}, one that {@link #serves} says is the console's. */
    void answer(ChannelHandlerContext ctx, HttpMethod method, String path, boolean keepAlive) {
        Asset asset = assets().get(path);
        if (asset == null) {
            RequestTimers.route(ctx, out.timers.unknown);
            out.error(ctx, Route.CONSOLE, HttpResponseStatus.NOT_FOUND, "no such path: " + path, keepAlive);
        } else if (out.allow(ctx, method, "GET", Route.CONSOLE, keepAlive)) {
            out.count(Route.CONSOLE, HttpResponseStatus.OK);
            Responses.write(ctx, HttpResponseStatus.OK, asset.type(), Unpooled.wrappedBuffer(asset.bytes()), keepAlive,
                    HEADERS);
        }
    }

    private Map<String, Asset> assets() {
        Map<String, Asset> a = assets;
        if (a == null) {
            synchronized (this) {
                a = assets;
                if (a == null) {
                    a = read();
                    assets = a;
                }
            }
        }
        return a;
    }

    private static Map<String, Asset> read() {
        Map<String, Asset> read = new HashMap<>();
        for (String file : FILES) {
            AsciiString type = TYPES.get(file.substring(file.lastIndexOf('.') + 1));
            try (InputStream in = ConsoleAssets.class.getClassLoader().getResourceAsStream(DIR + file)) {
                if (in == null || type == null) {
                    throw new IllegalStateException("the server jar lacks the console's " + file);
                }
                Asset asset = new Asset(in.readAllBytes(), type);
                read.put("/console/" + file, asset);
                if (file.equals("index.html")) {
                    read.put("/", asset);
                }
            } catch (IOException e) {
                throw new UncheckedIOException("cannot read the console's " + file, e);
            }
        }
        return Map.copyOf(read);
    }
}
