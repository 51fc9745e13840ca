package dev.pulsebus.telegram;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.pulsebus.adapter.JsonBytes;
import dev.pulsebus.config.Secret;
import dev.pulsebus.event.Event;
import dev.pulsebus.event.MessageEvent;
import dev.pulsebus.internal.Backoff;
import dev.pulsebus.internal.FailureLog;
import dev.pulsebus.internal.Json;
import dev.pulsebus.kv.Kv;
import dev.pulsebus.pipeline.Adapter;
import dev.pulsebus.pipeline.ChatLanes;
import dev.pulsebus.pipeline.Inbound;
import dev.pulsebus.pipeline.OutboundMessage;
import dev.pulsebus.platform.HttpExchange;
import dev.pulsebus.platform.HttpRoutes;
import dev.pulsebus.platform.InstanceMessaging;
import io.micrometer.core.instrument.MeterRegistry;
import io.netty.buffer.ByteBuf;
import java.io.IOException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Telegram bots as the PulseBus platform {@code telegram}: one bot per token, each its own
 * {@link dev.pulsebus.event.Self} (its bot id, the token's part before {@code :}).
 *
 * <p><b>Polling</b> ({@link TelegramSettings.Mode#POLLING}): one poller per bot, a virtual thread that calls
 * {@code deleteWebhook} once (a webhook left from webhook mode would make {@code getUpdates} fail) and then
 * {@code getUpdates} with {@code timeout} and {@code offset} over and over, handing each update it has not
 * taken yet to its chat's lane ({@link ChatLanes}: a chat's updates are handled in order, and the poller never
 * waits on a handler, so one that never returns holds up its own chat only). The {@code offset} it sends, which
 * confirms to Telegram every update below it, is the bot's handled {@link Watermark}: the first update taken
 * and not yet handled or given up on (a handler past {@code bus.stall_ms}, and its chat's updates set aside
 * behind it, are given up on). Before it sends a higher one it stores it in the KV store (namespace
 * {@value #KV_NAMESPACE}, key {@code update_id.<bot id>}, the update before it) and waits for the commit, so
 * a restart asks from it, and Telegram still holds every update from it on: a kill loses nothing it did not
 * give up on, and repeats the updates handled above the watermark (the pipeline drops a repeat within one
 * run). Telegram sends the updates from the offset at each poll, so while some wait on their lanes it answers
 * at once with them, and the poller skips them and, when nothing else came, waits for the watermark to move,
 * at most {@link #TAIL_WAIT_MILLIS}, before asking again. An update whose lane is full is taken at a later
 * poll. A network error or a Bot API error waits a {@link Backoff} delay (0.5 s doubling to 30 s) and the bot
 * shows down until a call works again. Stopping lets a poller finish the batch it has, and the lanes what
 * they hold, then stores the watermark.
 *
 * <p><b>Polling in a cluster</b> (made with the cluster's {@link InstanceMessaging}): each instance runs a
 * poller per bot, but only the one holding the bot's {@link PollLease} polls; the others wait to take it over.
 * The lease is renewed on a thread of its own, so a long poll does not hold it up; the holder stops polling,
 * cutting off a poll under way, as soon as it loses the lease (Redis says another holds it, or it could not
 * renew it in time: before it could have expired). The updates go to the pipeline as above, which in a cluster
 * hands each to the instance holding its chat and returns once the broker has it; only then is the update
 * settled, so the offset stored (in the shared database) and confirmed to Telegram never passes an update the
 * broker does not have. A new holder asks from the stored offset: what the dead one took and did not hand
 * over, Telegram sends again; what it handed over and had not confirmed is handed over again with the same
 * event id ({@code tg:<bot id>:<update_id>}), a copy the chat's holder drops.
 *
 * <p><b>Webhook</b> ({@link TelegramSettings.Mode#WEBHOOK}): {@code setWebhook} at start (retried with the
 * same backoff until it works), then Telegram POSTs updates to {@code /telegram/<bot id>/webhook} on the
 * server's port, mounted through the platform SPI ({@link #mount}); a wrong or missing {@code X-Telegram-Bot-Api-Secret-Token} is answered 401,
 * and runs nothing. There is always a secret: without {@code webhook_secret} one is drawn at random at start
 * and given to {@code setWebhook} (a bot id is public; a webhook taking posts without one would run anyone's),
 * and the answer 200 is written only once the update has been through the pipeline (Telegram posts it again
 * otherwise).
 *
 * <p>Updates become events as {@code UpdateDecoder} says; an update that cannot be read is counted
 * ({@code pulsebus_telegram_bad_updates_total}), warned, and passed over (its offset confirmed).
 */
public final class TelegramAdapter implements Adapter, dev.pulsebus.platform.Platform {

    static final String KV_NAMESPACE = "telegram";
    static final String PATH = "/telegram/";
    private static final Logger LOG = LoggerFactory.getLogger(TelegramAdapter.class);
    /** Every update type of the Bot API: {@code chat_member} and reactions come only when asked for. */
    static final List<String> ALLOWED_UPDATES = List.of("message", "edited_message", "channel_post",
            "edited_channel_post", "business_connection", "business_message", "edited_business_message",
            "deleted_business_messages", "message_reaction", "message_reaction_count", "inline_query",
            "chosen_inline_result", "callback_query", "shipping_query", "pre_checkout_query", "purchased_paid_media",
            "poll", "poll_answer", "my_chat_member", "chat_member", "chat_join_request", "chat_boost",
            "removed_chat_boost");
    /** How long a poll that came back empty before its timeout waits before the next (a server that does not hold). */
    static final long EMPTY_POLL_PAUSE_MILLIS = 200;
    /** How long a stop lets a poll come back by itself before it cuts the poll off. */
    static final Duration STOP_GRACE = Duration.ofSeconds(1);
    /** Lanes polled updates wait on, a chat always on the same one, and the updates each holds at most. */
    static final int LANES = 16;
    static final int LANE_CAPACITY = 1024;
    /** How long a poll waits for its offset to be stored before it goes on (warning). */
    static final Duration STORE_WAIT = Duration.ofSeconds(30);
    /**
     * How long a poll whose answer held only updates taken before (waiting on their lanes, so Telegram sends
     * them until the offset passes them) waits for the watermark to move before asking again.
     */
    static final long TAIL_WAIT_MILLIS = 100;

    final TelegramSettings settings;
    /**
     * Webhook mode: the {@code secret_token} given to {@code setWebhook} and checked on every post; the
     * configured {@code webhook_secret}, or one drawn at random for this run when none is set (the bot id is
     * public, so a webhook without one would run anyone's forged updates). Empty in polling mode.
     */
    private final Secret webhookSecret;
    final TelegramMetrics metrics = new TelegramMetrics();
    private final BotApi api;
    private final Sender sender;
    private final @Nullable Kv kv;
    private final Clock clock;
    private final Sender.Sleeper sleeper;
    private final Map<String, Bot> bots = new LinkedHashMap<>();
    private final ExecutorService work = Executors.newVirtualThreadPerTaskExecutor();
    private volatile @Nullable Inbound inbound;
    private volatile boolean stopping;
    /** Where polled updates wait for the pipeline, by chat: the poller hands them on and never waits on a handler. */
    private final ChatLanes<Polled> lanes = new ChatLanes<>("pulsebus-telegram-lane", LANES, LANE_CAPACITY,
            TelegramAdapter::chatOf, this::handle, Polled::settle);
    private final FailureLog laneFull = FailureLog.warning(LOG, Duration.ofMinutes(1));

    /** One bot: its token, what {@code getMe} said, whether it works, its poller. */
    static final class Bot {
        final String id;
        final String token;
        /** The KV key of its offset. */
        final String key;
        /** Polling: its poller's, made as it starts; read by stop once the poller has ended. */
        @Nullable Watermark watermark;
        /** The offset stored last (the poller's, then stop's). */
        long stored;
        volatile @Nullable String username;
        volatile boolean up;
        volatile @Nullable Thread thread;
        /** Polling in a cluster: the lease that lets this instance poll it; null on one instance. */
        @Nullable PollLease lease;
        /** Whether this instance polls it now ({@code pulsebus_telegram_polling}). */
        volatile boolean polling;
        /** Guards {@link #inBatch}: stop interrupts a poller unless it is handling a batch it has fetched. */
        final Object pollLock = new Object();
        boolean inBatch;

        Bot(String id, String token) {
            this.id = id;
            this.token = token;
            this.key = "update_id." + id;
        }
    }

    private TelegramAdapter(TelegramSettings settings, @Nullable Kv kv, @Nullable MeterRegistry registry, Clock clock,
                            Sender.Sleeper sleeper, @Nullable InstanceMessaging cluster) {
        this.settings = settings;
        this.kv = kv;
        this.clock = clock;
        this.sleeper = sleeper;
        this.api = new BotApi(settings.apiUrl(), metrics);
        this.sender = new Sender(api, work, sleeper);
        this.webhookSecret = settings.mode() != TelegramSettings.Mode.WEBHOOK ? Secret.NONE
                : settings.webhookSecret().isEmpty() ? Secret.of(Webhook.randomSecret()) : settings.webhookSecret();
        for (Secret token : settings.tokens()) {
            String id = TelegramSettings.botId(token.reveal());
            bots.putIfAbsent(id, new Bot(id, token.reveal()));
        }
        for (Bot bot : bots.values()) {
            if (cluster != null && settings.mode() == TelegramSettings.Mode.POLLING) {
                bot.lease = new PollLease(cluster, bot.id, () -> cutOff(bot));
            }
        }
        if (registry != null) {
            metrics.bind(registry);
            if (settings.mode() == TelegramSettings.Mode.POLLING) {
                for (Bot bot : bots.values()) {
                    metrics.polling(bot.id, () -> bot.polling);
                }
            }
        }
    }

    /**
     * An adapter with these settings, its offsets in {@code kv} (null: kept in memory only, a restart asks
     * Telegram for what it still holds), its meters in {@code registry} when given. Not started.
     */
    public static TelegramAdapter create(TelegramSettings settings, @Nullable Kv kv, @Nullable MeterRegistry registry) {
        return create(settings, kv, registry, (InstanceMessaging) null);
    }

    /**
     * {@link #create(TelegramSettings, Kv, MeterRegistry)} for one instance of a cluster ({@code cluster} not
     * null): in polling mode each bot is polled by the one instance holding its lease (see the class comment);
     * {@code kv} should then be the database all instances share.
     */
    public static TelegramAdapter create(TelegramSettings settings, @Nullable Kv kv, @Nullable MeterRegistry registry,
                                         @Nullable InstanceMessaging cluster) {
        return new TelegramAdapter(Objects.requireNonNull(settings, "settings"), kv, registry, Clock.systemUTC(),
                Thread::sleep, cluster);
    }

    /** For tests: a sleeper that records waits instead of (or as well as) sleeping. */
    static TelegramAdapter create(TelegramSettings settings, @Nullable Kv kv, @Nullable MeterRegistry registry,
                                  Sender.Sleeper sleeper) {
        return new TelegramAdapter(settings, kv, registry, Clock.systemUTC(), sleeper, null);
    }

    @Override
    public String platform() {
        return UpdateDecoder.PLATFORM;
    }

    public TelegramSettings settings() {
        return settings;
    }

    /** The bots' ids, in the order of their tokens. */
    public List<String> botIds() {
        return List.copyOf(bots.keySet());
    }

    @Override
    public void start(Inbound inbound) {
        this.inbound = inbound;
        lanes.start(inbound);
        if (settings.mode() == TelegramSettings.Mode.WEBHOOK && settings.webhookSecret().isEmpty()) {
            LOG.info("Telegram: adapters.telegram.webhook_secret is not set; the webhook checks a secret_token drawn "
                    + "at random for this run");
        }
        for (Bot bot : bots.values()) {
            bot.thread = Thread.ofVirtual().name("pulsebus-telegram-" + bot.id).start(() -> run(bot));
        }
    }

    /**
     * Stops the pollers: a poll that comes back within {@link #STOP_GRACE} is handled (a server that forgets
     * what it has sent, as an emulator does, loses nothing), one Telegram still holds is cut off (its updates
     * are not confirmed, so they are asked again at the next start); a poller finishes the batch it holds,
     * waited for at most 5 s. Releases the meters.
     */
    @Override
    public void stop() throws InterruptedException {
        stopping = true;
        long grace = System.nanoTime() + STOP_GRACE.toNanos();
        for (Bot bot : bots.values()) { // a poll being answered now comes back with updates the server may forget
            Thread t = bot.thread;
            if (t != null) {
                t.join(Duration.ofNanos(Math.max(1, grace - System.nanoTime())));
            }
        }
        for (Bot bot : bots.values()) {
            synchronized (bot.pollLock) {
                Thread t = bot.thread;
                if (t != null && !bot.inBatch) {
                    t.interrupt();
                }
            }
        }
        for (Bot bot : bots.values()) {
            Thread t = bot.thread;
            if (t != null && !t.join(Duration.ofSeconds(5))) {
                LOG.warn("Telegram bot {}: its poller still runs after 5 s; stopping anyway", bot.id);
            }
        }
        if (!lanes.stop(Duration.ofSeconds(5))) {
            LOG.warn("Telegram: a lane still runs a handler after 5 s; stopping anyway (its update is asked again "
                    + "at the next start)");
        }
        for (Bot bot : bots.values()) {
            Thread t = bot.thread;
            PollLease lease = bot.lease;
            if (t != null && !t.isAlive() && (lease == null || lease.held())) {
                persist(bot); // what the lanes handled since the last poll
            }
            if (lease != null) {
                lease.release(); // the next instance polls at once
            }
        }
        metrics.unbind();
        api.close();
    }

    /**
     * For tests: ends as a kill would leave things. The pollers are interrupted and end without storing
     * anything more, the lanes take nothing more, and what runs or waits on them is not waited for.
     */
    void abort() throws InterruptedException {
        stopping = true;
        for (Bot bot : bots.values()) {
            Thread t = bot.thread;
            if (t != null) {
                t.interrupt();
                t.join(Duration.ofSeconds(5));
            }
        }
        lanes.stop(Duration.ZERO);
        metrics.unbind();
        api.close();
    }

    @Override
    public CompletionStage<String> send(OutboundMessage message) {
        Bot bot = bots.get(message.bot().userId());
        if (bot == null) {
            return CompletableFuture.failedFuture(new IllegalArgumentException("no Telegram bot " + message.bot().userId()
                    + " is configured (adapters.telegram.token)"));
        }
        return sender.send(bot.token, message);
    }

    /**
     * The event in one {@code Update} as a webhook posts it, to bot {@code botId} whose {@code @username} is
     * {@code username} (null: unknown, so no command suffix is stripped); null when it is no update (counted
     * as bad). Nothing is dispatched; for tools and the benchmark. Any thread.
     */
    public @Nullable Event decode(ByteBuf update, String botId, @Nullable String username) {
        try {
            return UpdateDecoder.forThisThread().decode(update, botId, username, clock.instant());
        } catch (IOException e) {
            metrics.bad(TelegramMetrics.Bad.NOT_JSON, "an update that is not a JSON object");
        } catch (IllegalArgumentException | NullPointerException e) {
            metrics.bad(TelegramMetrics.Bad.INVALID, e.getMessage() == null ? e.toString() : e.getMessage());
        }
        return null;
    }

    /** {@code telegram:<bot id>} of each bot to whether it works: its last Bot API call (or webhook setup) worked. */
    @Override
    public Map<String, Boolean> health() {
        Map<String, Boolean> out = new LinkedHashMap<>();
        for (Bot bot : bots.values()) {
            out.put("telegram:" + bot.id, bot.up);
        }
        return out;
    }

    /** Changes whenever {@link #health()} may have. */
    @Override
    public long healthState() {
        long state = 0;
        for (Bot bot : bots.values()) {
            state = state * 2 + (bot.up ? 1 : 0);
        }
        return state;
    }

    // ------------------------------------------------------------------ a bot's thread

    private void run(Bot bot) {
        Backoff backoff = new Backoff(() -> ThreadLocalRandom.current().nextDouble());
        try {
            JsonNode me = retrying(bot, backoff, "getMe", Json.MAPPER.createObjectNode());
            if (me == null) {
                return;
            }
            bot.username = me.path("username").asText("");
            if (settings.mode() == TelegramSettings.Mode.WEBHOOK) {
                ObjectNode p = Json.MAPPER.createObjectNode().put("url", settings.webhookFor(bot.id))
                        .put("secret_token", webhookSecret.reveal());
                p.set("allowed_updates", Json.MAPPER.valueToTree(ALLOWED_UPDATES));
                if (retrying(bot, backoff, "setWebhook", p) != null) {
                    bot.up = true;
                    LOG.info("Telegram bot {} (@{}): webhook set", bot.id, bot.username);
                }
                return;
            }
            if (retrying(bot, backoff, "deleteWebhook", Json.MAPPER.createObjectNode()) == null) {
                return;
            }
            bot.up = true; // Telegram answers; a poll held for its timeout is no sign of trouble
            PollLease lease = bot.lease;
            if (lease == null) {
                LOG.info("Telegram bot {} (@{}): polling", bot.id, bot.username);
                poll(bot, backoff);
                return;
            }
            while (!stopping) {
                Thread.interrupted(); // a cut-off that came as the poll ended: not for the Redis calls ahead
                try {
                    lease.acquire();
                    poll(bot, backoff);
                } catch (InterruptedException e) {
                    if (stopping) {
                        return;
                    }
                    // cut off: the lease was lost
                } catch (RuntimeException e) { // the shared database failed: let another instance try
                    LOG.warn("Telegram bot {}: polling failed ({}); giving its lease up", bot.id, e.toString());
                    lease.release();
                    sleeper.sleep(PollLease.RENEW_MILLIS);
                } finally {
                    bot.polling = false;
                }
            }
        } catch (InterruptedException e) {
            // stopping
        } finally {
            bot.polling = false;
        }
    }

    /** Polling in a cluster: {@code bot}'s lease was lost; its poll under way is cut off, unless in a batch. */
    private void cutOff(Bot bot) {
        bot.polling = false;
        synchronized (bot.pollLock) {
            Thread t = bot.thread;
            if (t != null && !bot.inBatch) {
                t.interrupt();
            }
        }
    }

    /** {@code method} until it works (null when stopping first); the bot is down while it fails. */
    private @Nullable JsonNode retrying(Bot bot, Backoff backoff, String method, ObjectNode params)
            throws InterruptedException {
        while (!stopping) {
            try {
                JsonNode result = api.call(bot.token, method, params);
                backoff.reset();
                return result;
            } catch (IOException | TelegramApiException e) {
                failed(bot, backoff, method, e);
            }
        }
        return null;
    }

    private void failed(Bot bot, Backoff backoff, String method, Exception e) throws InterruptedException {
        bot.up = false;
        long delay = backoff.next();
        LOG.warn("Telegram bot {}: {} failed ({}); trying again in {} ms", bot.id, method, e.toString(), delay);
        sleeper.sleep(delay);
    }

    private void poll(Bot bot, Backoff backoff) throws InterruptedException {
        bot.stored = storedOffset(bot.key);
        Watermark watermark = new Watermark(bot.stored);
        bot.watermark = watermark;
        PollLease lease = bot.lease;
        bot.polling = true;
        if (lease != null) {
            LOG.info("Telegram bot {} (@{}): this instance ({}) took over polling it, from update {}", bot.id,
                    bot.username, lease.instance(), bot.stored);
        }
        ObjectNode params = Json.MAPPER.createObjectNode();
        params.put("timeout", settings.pollTimeoutSeconds());
        params.set("allowed_updates", Json.MAPPER.valueToTree(ALLOWED_UPDATES));
        Duration wait = Duration.ofSeconds(settings.pollTimeoutSeconds() + 15L);
        JsonBytes json = UpdateDecoder.reader(); // this poller's, answer after answer
        while (!stopping && (lease == null || lease.held())) {
            long offset = persist(bot); // stored before it confirms the updates under it to Telegram
            if (offset > 0) {
                params.put("offset", offset);
            }
            List<Polled> batch;
            long started = System.nanoTime();
            try {
                batch = api.call(bot.token, "getUpdates", params, wait, json, j -> read(bot, j));
            } catch (IOException | TelegramApiException e) {
                if (stopping) {
                    return;
                }
                failed(bot, backoff, "getUpdates", e);
                continue;
            }
            synchronized (bot.pollLock) {
                bot.inBatch = true; // from here stop waits for the batch: a server may forget what it has sent
                Thread.interrupted(); // a stop that came as the answer did
            }
            bot.up = true;
            backoff.reset();
            int took;
            try {
                took = handBatch(watermark, batch == null ? List.of() : batch);
            } finally {
                synchronized (bot.pollLock) {
                    bot.inBatch = false;
                }
            }
            if (took < 0) { // a lane was full: asked again from the update that found it so
                sleeper.sleep(EMPTY_POLL_PAUSE_MILLIS);
            } else if (took == 0 && batch != null && !batch.isEmpty()) { // only updates still waiting on their lanes
                watermark.awaitPast(offset, TAIL_WAIT_MILLIS);
            } else if (batch == null || batch.isEmpty()) {
                if (System.nanoTime() - started < Duration.ofSeconds(settings.pollTimeoutSeconds()).toNanos()) {
                    sleeper.sleep(EMPTY_POLL_PAUSE_MILLIS);
                }
            }
        }
    }

    /**
     * One update of a {@code getUpdates} answer, decoded as the answer streamed in: its event, or why it has
     * none; its {@code update_id}, -1 when it has none. Handed to a lane, it carries its bot's watermark and its
     * hand-off sequence there, to be settled.
     */
    private static final class Polled {
        final long updateId;
        final String type;
        final @Nullable Event event;
        final String problem;
        @Nullable Watermark watermark;
        long sequence;

        Polled(long updateId, String type, @Nullable Event event, String problem) {
            this.updateId = updateId;
            this.type = type;
            this.event = event;
            this.problem = problem;
        }

        /** It no longer waits on its lane: handled, or given up on. */
        void settle() {
            Watermark w = watermark;
            if (w != null) {
                w.settle(sequence);
            }
        }
    }

    /** The updates of a {@code getUpdates} result, the value that is next in {@code j}. */
    private List<Polled> read(Bot bot, JsonBytes j) throws IOException {
        if (j.kind() != JsonBytes.ARRAY) {
            j.skip();
            return List.of();
        }
        UpdateDecoder decoder = UpdateDecoder.forThisThread();
        Instant now = clock.instant();
        List<Polled> batch = new ArrayList<>();
        if (j.beginArray()) {
            do {
                try {
                    Event e = decoder.read(j, bot.id, bot.username, now);
                    batch.add(new Polled(decoder.updateId(), decoder.type(), e, ""));
                } catch (IllegalArgumentException | NullPointerException e) {
                    batch.add(new Polled(decoder.updateId(), "", null,
                            e.getMessage() == null ? e.toString() : e.getMessage()));
                }
            } while (j.nextElement());
        }
        return batch;
    }

    /**
     * Hands the updates of one answer not taken before to their chats' lanes, in order, never waiting for a
     * handler, each recorded in {@code watermark} until its lane settles it; a bad one is counted and passed
     * over. An update taken before (still waiting on its lane, which Telegram sends until the offset passes it)
     * is skipped. Returns how many it took; -1 when one found its lane (or the watermark) full: it and those
     * after it are taken at a later poll.
     */
    private int handBatch(Watermark watermark, List<Polled> batch) {
        int took = 0;
        for (Polled u : batch) {
            if (u.updateId < 0) {
                metrics.bad(TelegramMetrics.Bad.INVALID, u.problem);
                continue;
            }
            if (watermark.taken(u.updateId)) {
                continue;
            }
            if (u.event == null) {
                metrics.bad(TelegramMetrics.Bad.INVALID, u.problem);
                watermark.pass(u.updateId);
                took++;
                continue;
            }
            long sequence = watermark.nextSequence();
            u.watermark = watermark;
            u.sequence = sequence;
            if (sequence > 0 && lanes.offer(u)) {
                watermark.hand(u.updateId);
                metrics.update(u.type);
                took++;
            } else {
                laneFull.warn("Telegram: update {} waits: {}; asking for it again", u.updateId, sequence < 0
                        ? Watermark.SIZE + " updates of its bot wait on their lanes"
                        : "its chat's lane holds " + LANE_CAPACITY + " updates not yet handled");
                return -1;
            }
        }
        return took;
    }

    /** A polled update's ordering key: its chat, or the bot for an update of no chat. */
    private static Object chatOf(Polled update) {
        Event event = Objects.requireNonNull(update.event);
        return event instanceof MessageEvent m ? m.chat() : event.self().userId();
    }

    /** A polled update, on its chat's lane: through the pipeline. */
    private void handle(Polled update) {
        Inbound in = inbound;
        if (in != null) {
            in.accept(Objects.requireNonNull(update.event));
        }
    }

    private long storedOffset(String key) {
        Kv k = kv;
        if (k == null) {
            return 0;
        }
        String v = k.get(key);
        try {
            return v == null ? 0 : Long.parseLong(v) + 1;
        } catch (NumberFormatException e) {
            LOG.warn("Telegram: the stored {} is not a number ({}); asking from the oldest update", key, v);
            return 0;
        }
    }

    /**
     * Stores {@code bot}'s watermark when it has moved past the offset stored last (the update before it, a KV
     * write), waiting for the commit, and returns it (the offset to send, which the lanes may have moved past
     * by now); 0 before it polls. Without a KV nothing is stored. A write that fails is warned and tried again at
     * the next poll: it loses nothing (a restart would ask from an earlier update, which Telegram no longer
     * holds once a poll has confirmed it).
     */
    private long persist(Bot bot) throws InterruptedException {
        Watermark w = bot.watermark;
        if (w == null) {
            return 0;
        }
        long offset = w.watermark();
        Kv k = kv;
        if (k == null || offset <= bot.stored) {
            return offset;
        }
        try {
            k.setAsync(bot.key, Long.toString(offset - 1)).toCompletableFuture()
                    .get(STORE_WAIT.toMillis(), TimeUnit.MILLISECONDS);
            bot.stored = offset;
        } catch (ExecutionException | TimeoutException | RuntimeException e) {
            LOG.warn("Telegram bot {}: its offset {} not stored ({})", bot.id, offset,
                    e instanceof ExecutionException x && x.getCause() != null ? x.getCause() : e);
        }
        return offset;
    }

    /** Hands {@code event}, an update of {@code type}, to the pipeline on this thread. */
    private void accept(String type, Event event) {
        metrics.update(type);
        Inbound in = inbound;
        if (in != null) {
            in.accept(event);
        }
    }

    // ------------------------------------------------------------------ webhook

    /**
     * Mounts each bot's webhook, {@code /telegram/<bot id>/webhook}, on {@code routes}; in polling mode none (a
     * polling bot needs no HTTP server).
     */
    void mount(HttpRoutes routes) {
        if (settings.mode() != TelegramSettings.Mode.WEBHOOK) {
            return;
        }
        for (Bot bot : bots.values()) {
            routes.route(PATH + bot.id + "/webhook", PATH + "{bot}/webhook", exchange -> webhook(bot, exchange));
        }
    }

    /**
     * An update posted to a bot's webhook. Runs on the connection's I/O thread; the update goes through the
     * pipeline on a virtual thread, which then answers 200.
     */
    private void webhook(Bot bot, HttpExchange request) {
        if (!request.method().equals("POST")) {
            Webhook.answer(request, 405, "POST an update");
            return;
        }
        if (!webhookSecret.matches(request.header(Webhook.SECRET_HEADER))) {
            metrics.webhookRefused.increment();
            Webhook.answer(request, 401, "wrong or missing " + Webhook.SECRET_HEADER);
            return;
        }
        Event event;
        UpdateDecoder decoder = UpdateDecoder.forThisThread(); // on the I/O thread: one decoder per thread, reused
        try {
            event = decoder.decode(io.netty.buffer.Unpooled.wrappedBuffer(request.body()), bot.id, bot.username,
                    clock.instant());
        } catch (IOException e) {
            metrics.bad(TelegramMetrics.Bad.NOT_JSON, "a posted body that is not a JSON object");
            Webhook.answer(request, 400, "the body is not a JSON object");
            return;
        } catch (IllegalArgumentException | NullPointerException e) {
            metrics.bad(TelegramMetrics.Bad.INVALID, e.getMessage() == null ? e.toString() : e.getMessage());
            Webhook.ok(request); // taken no further; posting it again would not help
            return;
        }
        String type = decoder.type();
        work.execute(() -> {
            try {
                accept(type, event);
            } finally {
                Webhook.ok(request);
            }
        });
    }
}
