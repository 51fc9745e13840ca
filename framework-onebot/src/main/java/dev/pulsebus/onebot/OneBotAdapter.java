package dev.pulsebus.onebot;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.pulsebus.event.Event;
import dev.pulsebus.event.GroupMessage;
import dev.pulsebus.event.MessageEvent;
import dev.pulsebus.event.RequestEvent;
import dev.pulsebus.pipeline.Adapter;
import dev.pulsebus.pipeline.ChatLanes;
import dev.pulsebus.pipeline.Inbound;
import dev.pulsebus.pipeline.OutboundMessage;
import io.micrometer.core.instrument.MeterRegistry;
import io.netty.buffer.ByteBuf;
import dev.pulsebus.platform.HttpRoutes;
import dev.pulsebus.platform.InstanceMessaging;
import dev.pulsebus.platform.WebSocketListener;
import dev.pulsebus.platform.WebSocketSession;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.ThreadFactory;
import org.jspecify.annotations.Nullable;

/**
 * A OneBot v11 or v12 implementation as a PulseBus platform ({@code onebot11} or {@code onebot12}), over
 * the transport its {@link OneBotSettings#mode()} names. Events go through the pipeline on lanes (a chat's
 * events in order, never on an I/O thread); {@link #send} turns a reply into {@code send_private_msg} /
 * {@code send_group_msg} (v11) or {@code send_message} (v12), after a reply segment when it answers a
 * message, and completes with the platform's {@code message_id}; {@link #actions} is the typed client.
 *
 * <p>Reverse WebSocket and HTTP are served on the server's own port, mounted under {@link #path()} through the
 * platform SPI's neutral routes ({@link #mount}). Several bots may be connected at once; an action or a
 * reply for a bot goes out on that bot's connection. Bounded everywhere: lanes (16 × 1024 events),
 * actions out per connection ({@value WsConnection#MAX_IN_FLIGHT}; more wait, their frames within the
 * connection's write limit, while it is read slowly), the forward queue ({@link OneBotSettings#queueCapacity()}),
 * bots ({@value Bots#MAX}); each refusal is counted.
 */
public final class OneBotAdapter implements Adapter, dev.pulsebus.platform.Platform {

    static final int LANE_CAPACITY = 1024;
    /** Lanes events wait on for the pipeline, a chat always on the same one. */
    static final int LANES = 16;
    private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(OneBotAdapter.class);

    final OneBotSettings settings;
    final Protocol protocol;
    final OneBotMetrics metrics;
    final Bots bots;
    private final ChatLanes<Queued> lanes;
    /**
     * Where action results complete and v11 quick answers are written: a virtual thread each, never an I/O
     * thread. Not an ExecutorService: one that tracks its threads (to await them) would put and remove each in a
     * concurrent set, contended by every connection's event loop, for a shutdown this one never has.
     */
    final Executor completions;
    private final @Nullable ForwardLink forward;
    private final @Nullable ForwardClient client;
    private final @Nullable HttpLink http;
    private final Endpoint endpoint;
    private final Set<WsConnection> connections = ConcurrentHashMap.newKeySet();
    /** HTTP mode without an API url: the events being handled whose replies go in their answer. */
    private final Map<String, QuickAnswer> answers = new ConcurrentHashMap<>();
    private volatile @Nullable Inbound inbound;
    /** In a cluster, where the actions of a bot connected to another instance go; else null. */
    private volatile @Nullable ActionRelay relay;
    /** How many bots the last {@link #health()} did not name. */
    private volatile int unlisted;

    private OneBotAdapter(OneBotSettings settings, @Nullable MeterRegistry registry) {
        this.settings = settings;
        this.protocol = Protocol.of(settings.version());
        this.metrics = new OneBotMetrics(protocol.label);
        if (registry != null) {
            metrics.bind(registry);
        }
        this.bots = new Bots(protocol.platform, settings.mode() == Mode.HTTP, metrics.botsUntracked);
        ThreadFactory completing = Thread.ofVirtual().name("pulsebus-" + protocol.platform + "-completion").factory();
        this.completions = task -> completing.newThread(task).start();
        this.lanes = new ChatLanes<>("pulsebus-" + protocol.platform + "-lane", LANES, LANE_CAPACITY, Queued::key,
                this::handle);
        boolean forwardMode = settings.mode() == Mode.FORWARD_WS;
        this.forward = forwardMode ? new ForwardLink(settings.queueCapacity(), metrics) : null;
        this.client = forwardMode ? new ForwardClient(this, java.net.URI.create(settings.url())) : null;
        this.http = settings.mode() == Mode.HTTP && !settings.url().isEmpty()
                ? new HttpLink(protocol, settings.url(), settings.accessToken().reveal(), settings.actionTimeoutMs(),
                        completions)
                : null;
        this.endpoint = new Endpoint(this);
    }

    /** An adapter with these settings, its meters in {@code registry} when given. Not started. */
    public static OneBotAdapter create(OneBotSettings settings, @Nullable MeterRegistry registry) {
        return new OneBotAdapter(Objects.requireNonNull(settings, "settings"), registry);
    }

    @Override
    public String platform() {
        return protocol.platform;
    }

    public OneBotSettings settings() {
        return settings;
    }

    /** Where the implementation reaches it on the server's port: {@code /onebot/v11/} or {@code /onebot/v12/}. */
    public String path() {
        return endpoint.prefix;
    }

    @Override
    public void start(Inbound inbound) {
        this.inbound = inbound;
        String warning = settings.warning();
        if (warning != null) {
            org.slf4j.LoggerFactory.getLogger(OneBotAdapter.class).warn(warning);
        }
        lanes.start(inbound);
        ActionRelay r = relay;
        if (r != null) {
            r.start();
        }
        if (client != null) {
            client.start();
        }
    }

    /**
     * Makes this adapter one of a cluster's: the actions of a bot with no connection to this instance (a reverse
     * WebSocket reaches one instance; the chat's events may be handled by another) go to the instance that has
     * one, which performs them and sends their response back; and this instance performs those of the bots
     * connected here. The other instances' messages for it (kinds {@code <platform>-...}) come to it from
     * {@code cluster}.
     */
    void relayThrough(InstanceMessaging cluster) {
        ActionRelay r = new ActionRelay(this, cluster);
        this.relay = r;
        cluster.receive(protocol.platform + "-", r::received);
    }

    /** Mounts its reverse WebSocket and HTTP paths ({@link #path()}) on the server's {@code routes}. */
    void mount(HttpRoutes routes) {
        endpoint.mount(routes);
    }

    /**
     * Closes its connections (their actions in flight fail), fails what the forward queue holds, lets the
     * lanes finish, releases its meters. A send after it fails as refused.
     */
    @Override
    public void stop() throws InterruptedException {
        if (client != null) {
            client.stop();
        }
        ActionRelay r = relay;
        if (r != null) {
            r.stop();
        }
        if (forward != null) {
            forward.stop();
        }
        for (WsConnection c : connections) {
            c.session.close(1001, "the bot is stopping");
        }
        if (!lanes.stop(Duration.ofSeconds(5))) {
            LOG.warn("A {} lane still runs a handler after 5 s; stopping anyway", protocol.platform);
        }
        // completions stays open: code still running (a module unloading) may send, and is refused through it
        metrics.unbind();
    }

    @Override
    public CompletionStage<String> send(OutboundMessage message) {
        Protocol.Action action;
        try {
            action = protocol.send(message);
        } catch (IllegalArgumentException e) {
            return CompletableFuture.failedFuture(e);
        }
        String self = message.bot().userId();
        if (settings.mode() == Mode.HTTP && http == null) {
            QuickAnswer answer = message.replyTo() == null ? null : answers.get(QuickAnswer.key(self, message.replyTo()));
            if (answer != null && answer.add(action, message)) {
                return CompletableFuture.completedFuture(""); // a quick operation has no message id
            }
            return CompletableFuture.failedFuture(OneBotActionException.refused(action.name(), "no HTTP API url is "
                    + "set (adapters." + protocol.platform + ".url): only replies made while their event is handled "
                    + "can be sent, in the answer to the post"));
        }
        return call(self, action, true).thenApply(protocol::messageId);
    }

    /**
     * The event in one inbound frame, read as a connection's frames are: null when it holds none (an action's
     * response, or input counted as bad). {@code selfHint} names the bot for frames that name none. Nothing is
     * dispatched; for tools and the benchmark. Any thread.
     */
    public @Nullable Event decode(ByteBuf frame, String selfHint) {
        return protocol.decode(frame, selfHint, metrics) instanceof Event event ? event : null;
    }

    /** The typed actions of bot {@code selfId}. */
    public OneBotActions actions(String selfId) {
        return new OneBotActions(this, selfId);
    }

    /**
     * {@code onebot11:<self_id>} (each bot seen here, and in a cluster each bot connected to another instance) to
     * whether it is up; {@code onebot11}: down while none is known. At most {@value Bots#LISTED} bots, those down
     * first: {@link #unlistedBots()} says how many more there are.
     */
    @Override
    public Map<String, Boolean> health() {
        Map<String, Boolean> all = bots.components();
        ActionRelay r = relay;
        Set<String> elsewhere = r == null ? Set.of() : r.reachableElsewhere();
        if (!elsewhere.isEmpty()) {
            // in a cluster, a bot connected to another instance is up here too: its actions are relayed there
            all = new java.util.TreeMap<>(all);
            all.remove(protocol.platform); // "none seen": some are, elsewhere
            for (String self : elsewhere) {
                all.put(protocol.platform + ":" + self, true);
            }
        }
        int[] unlisted = new int[1];
        Map<String, Boolean> listed = Bots.listed(all, Bots.LISTED, unlisted);
        this.unlisted = unlisted[0];
        return listed;
    }

    /** How many bots the last {@link #health()} left out. */
    @Override
    public int unlistedBots() {
        return unlisted;
    }

    /** Its section's weak authentication (v11 over HTTP without secret), for {@code /health}. */
    @Override
    public List<String> warnings() {
        String w = settings.warning();
        return w == null ? List.of() : List.of(w);
    }

    /** Changes whenever {@link #health()} may have. */
    @Override
    public long healthState() {
        ActionRelay r = relay;
        long here = bots.state();
        return r == null ? here : here * 1031 + r.state();
    }

    CompletableFuture<JsonNode> call(String selfId, String action, ObjectNode params) {
        return call(selfId, Protocol.Action.of(action, params), true);
    }

    /** Whether bot {@code selfId} has a connection to this instance that takes actions (a reverse WebSocket). */
    boolean takesActionsHere(String selfId) {
        if (forward != null || http != null) {
            return false; // every instance has its own connection: nothing is relayed in these modes
        }
        Bots.Bot bot = bots.find(selfId);
        return bot != null && bot.link != null;
    }

    /** {@link #call} on this instance's own connection, never relayed: an action another instance relayed here. */
    CompletableFuture<JsonNode> callHere(String selfId, String action, ObjectNode params) {
        return call(selfId, Protocol.Action.of(action, params), false);
    }

    private CompletableFuture<JsonNode> call(String selfId, Protocol.Action a, boolean mayRelay) {
        String action = a.name();
        int index = OneBotMetrics.actionIndex(action);
        if (settings.mode() == Mode.HTTP && http == null) {
            ObjectNode params = a.params();
            QuickAnswer q = quickFor(selfId, action, params);
            if (q != null && q.operation(action, params)) {
                metrics.action(index, OneBotMetrics.Outcome.OK, 0);
                return CompletableFuture.completedFuture(com.fasterxml.jackson.databind.node.NullNode.getInstance());
            }
            metrics.action(index, OneBotMetrics.Outcome.REFUSED, 0);
            return CompletableFuture.failedFuture(OneBotActionException.refused(action, "no HTTP API url is set "
                    + "(adapters." + protocol.platform + ".url), and it is no quick operation of an event being handled"));
        }
        Bots.Bot bot = bots.find(selfId);
        Link link = forward != null ? forward : http != null ? http : bot == null ? null : bot.link;
        ActionRelay r = relay;
        if (link == null && mayRelay && r != null && r.reachableElsewhere(selfId)) {
            long start = System.nanoTime();
            CompletableFuture<JsonNode> result = r.call(selfId, action, a.params());
            result.whenComplete((v, e) -> metrics.action(index, outcome(e), start));
            return result;
        }
        if (link == null) {
            metrics.action(index, OneBotMetrics.Outcome.REFUSED, 0);
            return CompletableFuture.failedFuture(OneBotActionException.refused(action, "bot " + selfId
                    + " has no connection that takes actions" + (r == null ? "" : ", here or on another instance")));
        }
        long start = System.nanoTime();
        CompletableFuture<JsonNode> result = link.call(a, selfId, bot == null ? null : bot.platform);
        result.whenComplete((v, e) -> metrics.action(index, outcome(e), start));
        return result;
    }

    private static OneBotMetrics.Outcome outcome(@Nullable Throwable e) {
        if (e == null) {
            return OneBotMetrics.Outcome.OK;
        }
        if (e instanceof OneBotActionException a) {
            return switch (a.kind()) {
                case FAILED -> OneBotMetrics.Outcome.FAILED;
                case TIMEOUT -> OneBotMetrics.Outcome.TIMEOUT;
                case DISCONNECTED -> OneBotMetrics.Outcome.DISCONNECTED;
                case REFUSED -> OneBotMetrics.Outcome.REFUSED;
            };
        }
        return OneBotMetrics.Outcome.FAILED;
    }

    // ------------------------------------------------------------------ connections

    /** The listener of a WebSocket that serves {@code role}, naming bot {@code selfHint} (empty: none). */
    WebSocketListener listener(WsConnection.Role role, String selfHint) {
        return new Listener(role, selfHint);
    }

    /** A WebSocket is up (handshake done): the bot it named, if any, is online. Event loop. */
    void opened(WsConnection c) {
        connections.add(c);
        metrics.connections.incrementAndGet();
        Bots.Bot bot = bots.bot(c.selfHint);
        if (bot != null) {
            bind(c, bot);
        }
        if (forward != null) {
            forward.connected(c);
        }
    }

    /** {@code c} serves {@code bot}: counted as online through it; its actions go on it unless it only pushes events. */
    private void bind(WsConnection c, Bots.Bot bot) {
        if (!c.bots.contains(bot)) {
            c.bots.add(bot);
            bots.opened(bot);
        }
        Link link = forward != null ? forward : c;
        if (c.role != WsConnection.Role.EVENT && bot.link != link) {
            bot.link = link;
        }
    }

    /** One WebSocket's messages: its connection, made when it opens, and the events and responses it carries. */
    private final class Listener implements dev.pulsebus.netty.ByteBufListener {
        private final WsConnection.Role role;
        private final String selfHint;
        private @Nullable WsConnection connection;

        Listener(WsConnection.Role role, String selfHint) {
            this.role = role;
            this.selfHint = selfHint;
        }

        @Override
        public void opened(WebSocketSession session) {
            WsConnection c = new WsConnection(session, role, selfHint, protocol, metrics, completions,
                    settings.actionTimeoutMs());
            connection = c;
            OneBotAdapter.this.opened(c);
        }

        @Override
        public boolean text(WebSocketSession session, ByteBuf message) { // the frame's own buffer: no copy
            WsConnection c = connection;
            return c == null || message(c, message);
        }

        @Override
        public void dropped(WebSocketSession session, boolean binary, long bytes) {
            if (binary) {
                metrics.bad(OneBotMetrics.Bad.BINARY, "a binary message of " + bytes + " bytes");
            } else {
                metrics.bad(OneBotMetrics.Bad.OVERSIZED, "a message of " + bytes + " bytes, over max_frame_bytes "
                        + settings.maxFrameBytes());
            }
        }

        @Override
        public void writable(WebSocketSession session) {
            WsConnection c = connection;
            if (c != null) {
                c.writable();
            }
        }

        @Override
        public void closed(WebSocketSession session) {
            WsConnection c = connection;
            if (c != null) {
                OneBotAdapter.this.closed(c);
            }
        }
    }

    private boolean message(WsConnection c, ByteBuf text) {
        Object decoded = protocol.decode(text, c.selfHint, metrics);
        if (decoded instanceof JsonNode response) {
            metrics.frame(OneBotMetrics.Kind.RESPONSE);
            c.response(response);
            return true;
        }
        if (decoded == Protocol.NOT_UTF8) {
            metrics.bad(OneBotMetrics.Bad.NOT_UTF8, "a text frame that is not UTF-8: connection "
                    + c.session.remoteAddress() + " closed with 1007");
            return false;
        }
        if (decoded == Protocol.NOT_JSON) {
            metrics.bad(OneBotMetrics.Bad.NOT_JSON, "a frame that is not a JSON object");
            return true;
        }
        metrics.frame(OneBotMetrics.Kind.EVENT);
        if (decoded instanceof Event event) {
            Bots.Bot bot = seen(event);
            if (bot != null) {
                bind(c, bot);
            }
            long beat = Protocol.heartbeatInterval(event);
            if (beat > 0) {
                c.beat(beat);
            }
            status(event, bot, c);
            dispatch(event, null);
        }
        return true;
    }

    private void closed(WsConnection c) {
        if (!connections.remove(c)) {
            return;
        }
        metrics.connections.decrementAndGet();
        for (Bots.Bot bot : c.bots) {
            bots.closed(bot, c);
        }
        if (forward != null) {
            forward.disconnected(c);
        }
        c.closed();
    }

    /**
     * What a meta event says of the bots' state: v11's heartbeat {@code status.online}, v12's
     * {@code status_update} with each bot's {@code online}.
     */
    private void status(Event event, Bots.@Nullable Bot bot, @Nullable WsConnection c) {
        if (!(event instanceof dev.pulsebus.event.MetaEvent m) || !(m.fields().get("status") instanceof Map<?, ?> s)) {
            return;
        }
        if (m.detailType().equals("heartbeat") && bot != null && s.get("online") instanceof Boolean online) {
            bots.online(bot, online);
        } else if (m.detailType().equals("status_update") && s.get("bots") instanceof java.util.List<?> list) {
            for (Object o : list) {
                if (o instanceof Map<?, ?> entry && entry.get("self") instanceof Map<?, ?> self
                        && self.get("user_id") instanceof String id && entry.get("online") instanceof Boolean online) {
                    Bots.Bot b = bots.bot(id);
                    if (b != null) {
                        if (self.get("platform") instanceof String platform) {
                            b.platform = platform;
                        }
                        if (c != null) {
                            bind(c, b); // a v12 connection serves the bots it reports
                        }
                        bots.online(b, online);
                    }
                }
            }
        }
    }

    /** The bot of {@code event}, tracked, with its v12 platform noted. */
    private Bots.@Nullable Bot seen(Event event) {
        Bots.Bot bot = bots.bot(event.self().userId());
        if (bot != null) {
            String platform = Protocol.botPlatform(event);
            if (platform != null && !platform.equals(bot.platform)) {
                bot.platform = platform;
            }
        }
        return bot;
    }

    /** An event on its chat's lane ({@code key}), and what runs after it (may be null). */
    private record Queued(Object key, Event event, @Nullable Runnable then) {
    }

    /** A queued event, on its lane: through the pipeline, then its {@code then}. */
    private void handle(Queued q) {
        try {
            Inbound in = inbound;
            if (in != null) {
                in.accept(q.event);
            }
        } finally {
            if (q.then != null) {
                q.then.run();
            }
        }
    }

    /**
     * Queues {@code event} for the pipeline on its chat's lane; {@code then} (may be null) runs after it,
     * also when the lane is full (the event is then dropped and counted).
     */
    private void dispatch(Event event, @Nullable Runnable then) {
        Object key = event instanceof MessageEvent m ? m.chat() : event.self().userId();
        if (!lanes.offer(new Queued(key, event, then))) {
            metrics.bad(OneBotMetrics.Bad.LANE_FULL, "event " + event.id() + " dropped: its lane holds "
                    + LANE_CAPACITY + " events not yet handled");
            if (then != null) {
                then.run();
            }
        }
    }

    /**
     * An event posted over HTTP (already authenticated): handled on its lane, then answered by
     * {@code answer} with what replies were made meanwhile as quick operations (when there is no API url),
     * or with nothing. Returns what became of it: {@link Posted#TAKEN} (answered later), else the caller answers.
     */
    Posted posted(ByteBuf body, String selfHint, java.util.function.Consumer<@Nullable JsonNode> answer) {
        Object decoded = protocol.decode(body, selfHint, metrics);
        if (decoded == Protocol.NOT_UTF8) {
            metrics.bad(OneBotMetrics.Bad.NOT_UTF8, "a posted body that is not UTF-8");
            return Posted.NOT_JSON;
        }
        if (decoded == Protocol.NOT_JSON || decoded instanceof JsonNode) {
            metrics.bad(OneBotMetrics.Bad.NOT_JSON, "a posted body that is not a JSON event");
            return Posted.NOT_JSON;
        }
        metrics.frame(OneBotMetrics.Kind.EVENT);
        if (!(decoded instanceof Event event)) {
            return Posted.DROPPED; // counted
        }
        Bots.Bot bot = seen(event);
        long beat = Protocol.heartbeatInterval(event);
        if (bot != null) {
            bots.posted(bot);
            if (beat > 0) {
                bots.beat(bot, beat);
            }
        }
        status(event, bot, null);
        if (bot != null && http != null && bot.link != http) {
            bot.link = http;
        }
        if (http == null && (event instanceof MessageEvent || event instanceof RequestEvent)) {
            QuickAnswer q = new QuickAnswer(protocol.version);
            String self = event.self().userId();
            List<String> keys = quickKeys(event);
            for (String key : keys) {
                answers.put(QuickAnswer.key(self, key), q);
            }
            dispatch(event, () -> {
                for (String key : keys) {
                    answers.remove(QuickAnswer.key(self, key), q);
                }
                answer.accept(q.close());
            });
        } else {
            dispatch(event, () -> answer.accept(null));
        }
        return Posted.TAKEN;
    }

    /**
     * How the actions that v11 can answer as quick operations find the event being handled: a message by
     * its id (a reply, {@code delete_msg}) and, in a group, by group and sender ({@code set_group_kick},
     * {@code set_group_ban}); a request by its {@code flag}.
     */
    private static List<String> quickKeys(Event event) {
        if (event instanceof GroupMessage g) {
            return List.of(g.messageId(), "g:" + g.groupId() + ":" + g.userId());
        }
        if (event instanceof MessageEvent m) {
            return List.of(m.messageId());
        }
        return event instanceof RequestEvent r && r.fields().get("flag") instanceof String flag
                ? List.of("flag:" + flag) : List.of();
    }

    /** The event being handled that {@code action} would answer as a quick operation, or null. */
    private @Nullable QuickAnswer quickFor(String selfId, String action, ObjectNode params) {
        String key = switch (action) {
            case "delete_msg" -> JsonValues.id(params, "message_id");
            case "set_group_kick", "set_group_ban" -> "g:" + JsonValues.id(params, "group_id") + ":"
                    + JsonValues.id(params, "user_id");
            case "set_friend_add_request", "set_group_add_request" -> "flag:" + JsonValues.id(params, "flag");
            default -> null;
        };
        return key == null ? null : answers.get(QuickAnswer.key(selfId, key));
    }

    /** What became of a posted body. */
    enum Posted { TAKEN, DROPPED, NOT_JSON }
}
