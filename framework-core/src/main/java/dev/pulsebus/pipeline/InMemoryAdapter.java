package dev.pulsebus.pipeline;

import dev.pulsebus.event.GroupMessage;
import dev.pulsebus.event.Message;
import dev.pulsebus.event.PrivateMessage;
import dev.pulsebus.event.Self;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;

/**
 * An adapter with no platform behind it, for tests, examples and the benchmark: {@link #inject} plays an
 * incoming event, and sent messages are kept (the last {@code keep}) and handed to an optional
 * listener. Sends can be made to fail. Thread-safe.
 */
public final class InMemoryAdapter implements Adapter {

    private final String platform;
    private final Self bot;
    private final int keep;
    private final Deque<OutboundMessage> sent = new ArrayDeque<>();
    private final AtomicLong ids = new AtomicLong();
    private volatile Inbound inbound;
    private volatile @Nullable Consumer<OutboundMessage> listener;
    private volatile @Nullable Function<OutboundMessage, Throwable> failure;

    /** A bot {@code botId} on {@code platform}, keeping the last 1000 sent messages. */
    public InMemoryAdapter(String platform, String botId) {
        this(platform, botId, 1000);
    }

    public InMemoryAdapter(String platform, String botId, int keep) {
        this.platform = Objects.requireNonNull(platform, "platform");
        this.bot = new Self(platform, botId);
        this.keep = keep;
    }

    @Override
    public String platform() {
        return platform;
    }

    public Self bot() {
        return bot;
    }

    @Override
    public void start(Inbound inbound) {
        this.inbound = inbound;
    }

    @Override
    public void stop() {
        this.inbound = null;
    }

    /** Plays an incoming event through the pipeline, on this thread. */
    public InboundResult inject(dev.pulsebus.event.Event event) {
        Inbound in = inbound;
        if (in == null) {
            throw new IllegalStateException("adapter is not started");
        }
        return in.accept(event);
    }

    /** A group message from {@code userId} to this bot, with a fresh event id. */
    public GroupMessage groupMessage(String groupId, String userId, Message message) {
        String id = platform + "-" + ids.incrementAndGet();
        return new GroupMessage(id, Instant.now(), bot, "", id, message, userId, groupId, null);
    }

    /** A private message from {@code userId} to this bot, with a fresh event id. */
    public PrivateMessage privateMessage(String userId, Message message) {
        String id = platform + "-" + ids.incrementAndGet();
        return new PrivateMessage(id, Instant.now(), bot, "", id, message, userId, null);
    }

    @Override
    public CompletionStage<String> send(OutboundMessage message) {
        Function<OutboundMessage, Throwable> f = failure;
        Throwable fail = f != null ? f.apply(message) : null;
        if (fail != null) {
            return CompletableFuture.failedFuture(fail);
        }
        synchronized (sent) {
            if (sent.size() == keep) {
                sent.pollFirst();
            }
            sent.addLast(message);
        }
        Consumer<OutboundMessage> l = listener;
        if (l != null) {
            l.accept(message);
        }
        return CompletableFuture.completedFuture("sent-" + ids.incrementAndGet());
    }

    /** The messages sent so far (the last {@code keep}), oldest first. */
    public List<OutboundMessage> sent() {
        synchronized (sent) {
            return new ArrayList<>(sent);
        }
    }

    /** Called with each message sent, on the sending thread. */
    public void onSend(Consumer<OutboundMessage> listener) {
        this.listener = Objects.requireNonNull(listener, "listener");
    }

    /** Makes sends fail with what {@code failure} returns ({@code null}: succeed). */
    public void failSends(Function<OutboundMessage, Throwable> failure) {
        this.failure = Objects.requireNonNull(failure, "failure");
    }
}
