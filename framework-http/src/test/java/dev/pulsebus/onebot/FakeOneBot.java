package dev.pulsebus.onebot;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpServer;
import dev.pulsebus.internal.Json;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.websocketx.TextWebSocketFrame;
import io.netty.handler.codec.http.websocketx.WebSocketServerProtocolHandler;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.WebSocket;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * A OneBot implementation as the v11 and v12 specs describe its side of each transport, for tests:
 * a reverse WebSocket client ({@link #connect}) that sends {@code X-Self-ID}, {@code X-Client-Role} and the
 * token; a forward WebSocket server ({@link #serveWebSocket}) that checks {@code Authorization: Bearer}; an
 * event poster ({@link #post}) that signs with {@code X-Signature: sha1=...}; an HTTP API
 * ({@link #serveHttpApi}) at {@code /<action>} (v11) or {@code /} (v12). Every action it receives is kept in
 * {@link #actions}, in order, and answered as the spec's response ({@code status}, {@code retcode}, {@code
 * data}, {@code echo}) by {@link #answer}, which a test may replace (null: no answer).
 */
final class FakeOneBot implements AutoCloseable {

    /** An action received, and on which connection (a client, the forward server's, or "http"). */
    record Received(Object on, String action, JsonNode params, JsonNode frame, String authorization) {
    }

    final int version;
    final BlockingQueue<Received> actions = new LinkedBlockingQueue<>();
    final AtomicInteger messageIds = new AtomicInteger(100);
    volatile Function<JsonNode, JsonNode> answer = this::ok;
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private final List<AutoCloseable> open = new CopyOnWriteArrayList<>();

    FakeOneBot(int version) {
        this.version = version;
    }

    /** The spec's success response to {@code request}: a message id for a send, the login info, else null data. */
    JsonNode ok(JsonNode request) {
        ObjectNode res = JsonNodeFactory.instance.objectNode();
        res.put("status", "ok");
        res.put("retcode", 0);
        String action = request.path("action").asText();
        if (action.startsWith("send_")) {
            int id = messageIds.incrementAndGet();
            ObjectNode data = res.putObject("data");
            if (version == 11) {
                data.put("message_id", id);
            } else {
                data.put("message_id", Integer.toString(id)).put("time", 1632847927.599013);
            }
        } else if (action.equals("get_login_info") || action.equals("get_self_info")) {
            ObjectNode data = res.putObject("data").put("nickname", "PulseBus");
            if (version == 11) {
                data.put("user_id", 10001000L);
            } else {
                data.put("user_id", "10001000");
            }
        } else {
            res.putNull("data");
        }
        if (version == 12) {
            res.put("message", "");
        }
        if (request.has("echo")) {
            res.set("echo", request.get("echo"));
        }
        return res;
    }

    /** A failure response: {@code retcode} and the message. */
    static JsonNode failed(JsonNode request, int retcode, String message) {
        ObjectNode res = JsonNodeFactory.instance.objectNode();
        res.put("status", "failed");
        res.put("retcode", retcode);
        res.putNull("data");
        res.put("message", message);
        res.set("echo", request.get("echo"));
        return res;
    }

    // ------------------------------------------------------------------ reverse WebSocket (we are the client)

    /** A connection the implementation opened to PulseBus. */
    final class Client implements WebSocket.Listener {
        final CompletableFuture<Integer> closed = new CompletableFuture<>();
        private final ExecutorService sends = Executors.newSingleThreadExecutor();
        private final StringBuilder partial = new StringBuilder();
        private volatile WebSocket socket;

        void send(String text) {
            CompletableFuture.runAsync(() -> socket.sendText(text, true).join(), sends).join();
        }

        void sendBinary(byte[] bytes) {
            CompletableFuture.runAsync(() -> socket.sendBinary(ByteBuffer.wrap(bytes), true).join(), sends).join();
        }

        boolean open() {
            return !closed.isDone();
        }

        /** Closes the TCP connection without a close handshake: a lost connection. */
        void drop() {
            socket.abort();
        }

        @Override
        public void onOpen(WebSocket webSocket) {
            this.socket = webSocket;
            webSocket.request(1);
        }

        @Override
        public CompletionStage<?> onText(WebSocket webSocket, CharSequence data, boolean last) {
            partial.append(data);
            if (last) {
                String text = partial.toString();
                partial.setLength(0);
                received(this, text, "", reply -> CompletableFuture.runAsync(
                        () -> socket.sendText(reply, true).join(), sends));
            }
            webSocket.request(1);
            return null;
        }

        @Override
        public CompletionStage<?> onClose(WebSocket webSocket, int statusCode, String reason) {
            closed.complete(statusCode);
            return null;
        }

        @Override
        public void onError(WebSocket webSocket, Throwable error) {
            closed.complete(-1);
        }
    }

    /** Connects to PulseBus at {@code uri}; {@code headers}: names and values in turn. Fails on a refused handshake. */
    Client connect(URI uri, String... headers) throws Exception {
        Client c = new Client();
        WebSocket.Builder b = http.newWebSocketBuilder().connectTimeout(Duration.ofSeconds(5));
        for (int i = 0; i < headers.length; i += 2) {
            b.header(headers[i], headers[i + 1]);
        }
        if (version == 12) {
            b.subprotocols("12.fake-onebot");
        }
        c.socket = b.buildAsync(uri, c).get(10, TimeUnit.SECONDS);
        open.add(() -> {
            if (c.open()) {
                c.socket.abort();
            }
            c.sends.shutdownNow();
        });
        return c;
    }

    private void received(Object on, String text, String authorization, java.util.function.Consumer<String> reply) {
        JsonNode frame;
        try {
            frame = Json.MAPPER.readTree(text);
        } catch (IOException e) {
            throw new AssertionError("PulseBus sent a frame that is not JSON: " + text, e);
        }
        actions.add(new Received(on, frame.path("action").asText(), frame.path("params"), frame, authorization));
        JsonNode res = answer.apply(frame);
        if (res != null) {
            reply.accept(res.toString());
        }
    }

    // ------------------------------------------------------------------ forward WebSocket (we are the server)

    /** The implementation's WebSocket server, for PulseBus to connect to. */
    final class WsServer implements AutoCloseable {
        final String token;
        final List<Channel> connections = new CopyOnWriteArrayList<>();
        final AtomicInteger handshakes = new AtomicInteger();
        final List<String> authorizations = new CopyOnWriteArrayList<>();
        volatile boolean refusing;
        private final EventLoopGroup group = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
        private final Channel listener;

        WsServer(String token) throws InterruptedException {
            this.token = token;
            this.listener = new ServerBootstrap().group(group).channel(NioServerSocketChannel.class)
                    .childHandler(new ChannelInitializer<SocketChannel>() {
                        @Override
                        protected void initChannel(SocketChannel ch) {
                            ch.pipeline().addLast(new HttpServerCodec(), new HttpObjectAggregator(65536),
                                    new Gate(), new WebSocketServerProtocolHandler("/", null, false, 64 << 20),
                                    new Frames());
                        }
                    }).bind("127.0.0.1", 0).sync().channel();
        }

        URI uri() {
            return URI.create("ws://127.0.0.1:" + ((InetSocketAddress) listener.localAddress()).getPort() + "/");
        }

        /** Sends an event to PulseBus on the newest connection. */
        void send(String json) {
            Channel c = connections.get(connections.size() - 1);
            c.writeAndFlush(new TextWebSocketFrame(json)).syncUninterruptibly();
        }

        /** Sends an event to PulseBus on every open connection, as an implementation with several clients does. */
        void sendToAll(String json) {
            for (Channel c : connections) {
                if (c.isActive()) {
                    c.writeAndFlush(new TextWebSocketFrame(json)).syncUninterruptibly();
                }
            }
        }

        void dropAll() {
            for (Channel c : connections) {
                c.close().syncUninterruptibly();
            }
        }

        int open() {
            return (int) connections.stream().filter(Channel::isActive).count();
        }

        /** Refuses handshakes (503) while set, and says whether a token is checked (401). */
        private final class Gate extends SimpleChannelInboundHandler<FullHttpRequest> {
            Gate() {
                super(false);
            }

            @Override
            protected void channelRead0(ChannelHandlerContext ctx, FullHttpRequest req) {
                String auth = req.headers().get(HttpHeaderNames.AUTHORIZATION, "");
                authorizations.add(auth);
                HttpResponseStatus refusal = refusing ? HttpResponseStatus.SERVICE_UNAVAILABLE
                        : !token.isEmpty() && !auth.equals("Bearer " + token) ? HttpResponseStatus.UNAUTHORIZED : null;
                if (refusal != null) {
                    req.release();
                    ctx.writeAndFlush(new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, refusal))
                            .addListener(ChannelFutureListener.CLOSE);
                    return;
                }
                handshakes.incrementAndGet();
                connections.add(ctx.channel());
                ctx.fireChannelRead(req);
            }
        }

        private final class Frames extends SimpleChannelInboundHandler<TextWebSocketFrame> {
            @Override
            protected void channelRead0(ChannelHandlerContext ctx, TextWebSocketFrame frame) {
                Channel ch = ctx.channel();
                received(ch, frame.text(), "", reply -> ch.writeAndFlush(new TextWebSocketFrame(reply)));
            }
        }

        @Override
        public void close() {
            listener.close().syncUninterruptibly();
            dropAll();
            group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
        }
    }

    WsServer serveWebSocket(String token) throws InterruptedException {
        WsServer s = new WsServer(token);
        open.add(s);
        return s;
    }

    // ------------------------------------------------------------------ HTTP

    /** The implementation's HTTP API: v11 actions at {@code /<action>}, v12 at {@code /}; returns its base URL. */
    URI serveHttpApi() throws IOException {
        HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        server.createContext("/", exchange -> {
            String body = new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
            String auth = exchange.getRequestHeaders().getFirst("Authorization");
            JsonNode parsed = Json.MAPPER.readTree(body);
            ObjectNode frame;
            if (version == 11) {
                frame = JsonNodeFactory.instance.objectNode();
                frame.put("action", exchange.getRequestURI().getPath().substring(1));
                frame.set("params", parsed);
            } else {
                frame = (ObjectNode) parsed;
            }
            actions.add(new Received("http", frame.path("action").asText(), frame.path("params"), frame,
                    auth == null ? "" : auth));
            JsonNode res = answer.apply(frame);
            byte[] out = (res == null ? "" : res.toString()).getBytes(StandardCharsets.UTF_8);
            exchange.getResponseHeaders().set("Content-Type", "application/json");
            exchange.sendResponseHeaders(200, out.length == 0 ? -1 : out.length);
            exchange.getResponseBody().write(out);
            exchange.close();
        });
        server.start();
        open.add(() -> server.stop(0));
        return URI.create("http://127.0.0.1:" + server.getAddress().getPort());
    }

    /** POSTs an event as an implementation reports it; signed with {@code secret} when it is not empty. */
    HttpResponse<String> post(URI uri, String event, String secret, String... headers) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(30))
                .header("Content-Type", "application/json").header("X-Self-ID", Long.toString(Fixtures.SELF))
                .POST(HttpRequest.BodyPublishers.ofString(event));
        if (!secret.isEmpty()) {
            b.header("X-Signature", "sha1=" + hmac(secret, event));
        }
        for (int i = 0; i < headers.length; i += 2) {
            b.header(headers[i], headers[i + 1]);
        }
        return http.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    static String hmac(String secret, String body) throws Exception {
        Mac mac = Mac.getInstance("HmacSHA1");
        mac.init(new SecretKeySpec(secret.getBytes(StandardCharsets.UTF_8), "HmacSHA1"));
        return java.util.HexFormat.of().formatHex(mac.doFinal(body.getBytes(StandardCharsets.UTF_8)));
    }

    /** The next action received, waiting up to 10 s; fails the test when none comes. */
    Received next() throws InterruptedException {
        Received r = actions.poll(10, TimeUnit.SECONDS);
        if (r == null) {
            throw new AssertionError("no action reached the fake implementation within 10 s");
        }
        return r;
    }

    @Override
    public void close() throws Exception {
        for (AutoCloseable c : open) {
            c.close();
        }
    }
}
