package dev.pulsebus.server;

import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.util.AsciiString;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * What a request must show before it is routed, against a browser used as a weapon (docs/SECURITY.md):
 * <ul>
 *   <li>its {@code Host} is one of the server's own names (a DNS-rebinding page sends its own name): 400
 *       without one on HTTP/1.1 (RFC 9112, 3.2), 421 for another;</li>
 *   <li>a write (any method but GET, HEAD, OPTIONS) comes from the server's own origin: 403 when
 *       {@code Origin} names another (or is {@code null}), or when {@code Sec-Fetch-Site} says it is
 *       cross-site or same-site. Clients that are not browsers send neither and are not affected.</li>
 * </ul>
 * The server's own names: {@code localhost}, the bind address ({@code server.host}), loopback addresses, the
 * address the connection came in on, any address literal when bound to all interfaces (a rebinding page
 * sends a name, never an address), this machine's host name, the names in {@code server.allowed_hosts} (an entry {@code .example.com}
 * takes its subdomains too; {@code *} turns the check off), and the host names the platforms' peers use (a webhook's URL). Event-loop confined; allocates only when it refuses.
 */
final class RequestGuard {

    private static final Pattern IPV4 = Pattern.compile("\\d{1,3}(\\.\\d{1,3}){3}");
    private static final AsciiString SEC_FETCH_SITE = AsciiString.cached("sec-fetch-site");
    /** The headers a proxy adds: a request that went through one is not from loopback, wherever the proxy is. */
    private static final List<AsciiString> PROXY_HEADERS = List.of(AsciiString.cached("forwarded"),
            AsciiString.cached("x-forwarded-for"), AsciiString.cached("x-real-ip"));

    /** Why a request was refused, with the status that says so. */
    record Refusal(HttpResponseStatus status, String message) {
    }

    private final String bindHost;
    private final boolean wildcard;
    private final boolean anyHost;
    private final List<String> allowed;

    RequestGuard(ServerConfig config) {
        this.bindHost = unbracket(config.listen().host().toLowerCase(Locale.ROOT));
        InetAddress bind = literal(bindHost);
        this.wildcard = bindHost.isEmpty() || (bind != null && bind.isAnyLocalAddress());
        this.anyHost = config.listen().allowedHosts().contains("*");
        List<String> names = new ArrayList<>(config.listen().allowedHosts());
        names.add(PulseBusServer.hostName().toLowerCase(Locale.ROOT)); // this machine's name, as the JDK gives it
        for (dev.pulsebus.platform.PlatformSection<?> p : config.platforms()) {
            if (p.settings().enabled()) {
                names.addAll(p.settings().hostNames()); // the name a platform's peer posts to (a webhook's)
            }
        }
        this.allowed = List.copyOf(names);
    }

    /** Null when {@code req} may go on; otherwise why not. */
    @Nullable Refusal check(ChannelHandlerContext ctx, FullHttpRequest req) {
        HttpHeaders headers = req.headers();
        String host = headers.get(HttpHeaderNames.HOST);
        if (host == null || host.isBlank()) {
            if (req.protocolVersion().equals(HttpVersion.HTTP_1_0)) {
                return null; // HTTP/1.0 has no Host: the client named no one else
            }
            return new Refusal(HttpResponseStatus.BAD_REQUEST, "an HTTP/1.1 request needs a Host header");
        }
        if (headers.getAll(HttpHeaderNames.HOST).size() > 1) {
            return new Refusal(HttpResponseStatus.BAD_REQUEST, "more than one Host header");
        }
        String name = hostName(host);
        if (name == null) {
            return new Refusal(HttpResponseStatus.BAD_REQUEST, "malformed Host header: " + host);
        }
        if (!own(name, ctx)) {
            return new Refusal(HttpResponseStatus.MISDIRECTED_REQUEST, "Host '" + host + "' is not one of this"
                    + " server's names (its bind address, localhost, or server.allowed_hosts); add it to"
                    + " server.allowed_hosts if it is");
        }
        if (!write(req.method())) {
            return null;
        }
        String site = headers.get(SEC_FETCH_SITE);
        if (site != null && !site.equalsIgnoreCase("same-origin") && !site.equalsIgnoreCase("none")) {
            return new Refusal(HttpResponseStatus.FORBIDDEN, "a " + site + " request may not change anything here"
                    + " (Sec-Fetch-Site: " + site + ")");
        }
        String origin = headers.get(HttpHeaderNames.ORIGIN);
        if (origin != null && !ownOrigin(origin, host)) {
            return new Refusal(HttpResponseStatus.FORBIDDEN, "a request from origin " + origin
                    + " may not change anything here: only pages this server serves may");
        }
        return null;
    }

    /** True for a request that may change something: any method but GET, HEAD and OPTIONS. */
    static boolean write(HttpMethod method) {
        return !(method.equals(HttpMethod.GET) || method.equals(HttpMethod.HEAD) || method.equals(HttpMethod.OPTIONS));
    }

    /**
     * True when the client is on the loopback interface and the request did not come through a proxy
     * ({@code Forwarded}, {@code X-Forwarded-For}, {@code X-Real-IP}): behind a reverse proxy on the same
     * host, every client would otherwise look like loopback.
     */
    static boolean loopbackClient(@Nullable SocketAddress client, HttpHeaders headers) {
        if (!(client instanceof InetSocketAddress a) || a.getAddress() == null || !a.getAddress().isLoopbackAddress()) {
            return false;
        }
        for (AsciiString h : PROXY_HEADERS) {
            if (headers.contains(h)) {
                return false;
            }
        }
        return true;
    }

    /**
     * True when {@code authorization} is {@code Bearer <token>}, the scheme in any case (RFC 7235, 2.1),
     * compared in constant time.
     */
    static boolean bearer(@Nullable String authorization, byte[] token) {
        if (authorization == null || !authorization.regionMatches(true, 0, "Bearer ", 0, 7)) {
            return false;
        }
        byte[] given = authorization.substring(7).strip().getBytes(StandardCharsets.UTF_8);
        return MessageDigest.isEqual(token, given);
    }

    /** True when the request's {@code Origin} is this server's own: the authority it was sent to, or an allowed host. */
    private boolean ownOrigin(String origin, String host) {
        URI u;
        try {
            u = new URI(origin);
        } catch (URISyntaxException e) {
            return false;
        }
        String scheme = u.getScheme();
        String authority = u.getRawAuthority();
        if (scheme == null || authority == null || !(scheme.equalsIgnoreCase("http") || scheme.equalsIgnoreCase("https"))) {
            return false; // "null" (a sandboxed frame, a file), or not a web page
        }
        if (authority.equalsIgnoreCase(host.strip())) {
            return true;
        }
        String name = hostName(authority);
        return name != null && listed(name);
    }

    private boolean own(String name, ChannelHandlerContext ctx) {
        if (anyHost || name.equals("localhost") || name.equals(bindHost) || listed(name)) {
            return true;
        }
        InetAddress address = literal(name);
        if (address == null) {
            return false;
        }
        return wildcard || address.isLoopbackAddress()
                || (ctx.channel().localAddress() instanceof InetSocketAddress local && address.equals(local.getAddress()));
    }

    private boolean listed(String name) {
        for (String a : allowed) {
            if (a.equals(name) || (a.startsWith(".") && (name.endsWith(a) || name.equals(a.substring(1))))) {
                return true;
            }
        }
        return false;
    }

    /** The host of a {@code Host} value ({@code name}, {@code name:port}, {@code [v6]:port}), lower case; null when malformed. */
    static @Nullable String hostName(String value) {
        String v = value.strip().toLowerCase(Locale.ROOT);
        String name;
        if (v.startsWith("[")) {
            int end = v.indexOf(']');
            if (end < 0 || !(end == v.length() - 1 || v.charAt(end + 1) == ':')) {
                return null;
            }
            name = v.substring(1, end);
            return literal(name) == null ? null : name;
        }
        int colon = v.indexOf(':');
        if (colon >= 0 && v.indexOf(':', colon + 1) >= 0) {
            return null; // an IPv6 address must be in brackets
        }
        name = colon < 0 ? v : v.substring(0, colon);
        if (name.endsWith(".")) {
            name = name.substring(0, name.length() - 1);
        }
        return name.isEmpty() ? null : name;
    }

    private static String unbracket(String host) {
        return host.startsWith("[") && host.endsWith("]") ? host.substring(1, host.length() - 1) : host;
    }

    /** {@code name} as an address when it is an IPv4 or IPv6 literal (no lookup), else null. */
    private static @Nullable InetAddress literal(String name) {
        if (IPV4.matcher(name).matches()) {
            for (String octet : name.split("\\.", -1)) {
                if (Integer.parseInt(octet) > 255) {
                    return null; // not a literal: getByName would look it up
                }
            }
        } else if (name.indexOf(':') < 0 || !name.chars().allMatch(
                c -> c == ':' || c == '.' || c == '%' || Character.isLetterOrDigit(c))) {
            return null;
        }
        try {
            return InetAddress.getByName(name); // a literal: parsed, never looked up
        } catch (UnknownHostException e) {
            return null;
        }
    }
}
