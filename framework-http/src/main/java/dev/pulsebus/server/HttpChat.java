package dev.pulsebus.server;

import com.fasterxml.jackson.databind.JsonNode;
import dev.pulsebus.cluster.Cluster;
import dev.pulsebus.cluster.Redelivery;
import dev.pulsebus.event.ChatRef;
import dev.pulsebus.event.GroupMessage;
import dev.pulsebus.event.Message;
import dev.pulsebus.event.Self;
import dev.pulsebus.internal.Json;
import dev.pulsebus.pipeline.Adapter;
import dev.pulsebus.pipeline.ChatLanes;
import dev.pulsebus.pipeline.Inbound;
import dev.pulsebus.pipeline.InboundResult;
import dev.pulsebus.pipeline.OutboundMessage;
import dev.pulsebus.pipeline.ReplyWatch;
import dev.pulsebus.transcript.TranscriptRecord;
import dev.pulsebus.transcript.TranscriptWriter;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The built-in {@code http} platform: rooms that people and scripts talk to the bot in over HTTP. A
 * room is the group chat {@code http/<room>}; its history is that chat's transcript, written here (and
 * only here: the pipeline is told not to record {@code http} chats) so that a say is acknowledged once
 * its row has committed and the bot's replies land in the same room as user {@code bot}.
 *
 * <p>After the commit, a said message goes to the message pipeline on one of {@link #LANES} virtual
 * threads, chosen by room, so a room's messages are handled in order and never on a Netty I/O thread.
 * Each lane holds at most {@code maxPending / LANES} messages; a say that finds its lane full is refused
 * (503) before anything is stored, and counted.
 */
final class HttpChat implements Adapter {

    static final String PLATFORM = "http";
    static final String BOT_USER = "bot";
    static final int LANES = 16;
    static final long STOP_WAIT_MILLIS = 5_000;
    private static final Logger LOG = LoggerFactory.getLogger(HttpChat.class);

    private final TranscriptWriter transcripts;
    private final LongPollRooms polls;
    private final RoomHistory history;
    private final Clock clock;
    private final Self self = new Self(PLATFORM, BOT_USER);
    private final String idPrefix;
    private final AtomicLong ids = new AtomicLong();
    private final ChatLanes<GroupMessage> lanes;
    @SuppressWarnings("NullAway.Init") // set by start(), before a say is taken
    private volatile Inbound inbound;
    /** In a cluster: where said messages are handled (one instance per room) and whom commits wake. */
    private final @Nullable Cluster cluster;
    private final int maxPending;
    private final java.util.concurrent.Executor offLoop;
    /** Says handed to their room's holder, by id, until it answers (at most {@code maxPending}). */
    private final java.util.concurrent.ConcurrentHashMap<String, CompletableFuture<TranscriptRecord>> storing =
            new java.util.concurrent.ConcurrentHashMap<>();
    final LongAdder received = new LongAdder();
    final LongAdder handled = new LongAdder();
    final LongAdder refused = new LongAdder();
    /** Says sent again with the id of one stored already, answered as it. */
    final LongAdder repeated = new LongAdder();

    HttpChat(TranscriptWriter transcripts, RoomHistory history, LongPollRooms polls, Clock clock, String instance,
             int maxPending) {
        this(transcripts, history, polls, clock, instance, maxPending, null, Runnable::run);
    }

    /**
     * In a {@code cluster}: a said message goes through the broker to the instance that holds its room, which
     * stores it and answers this one (so one client's says to a room are handled, and stored, in the order it
     * made them, whichever instances took them), and every stored message wakes the polls of the other instances.
     * Says are handed to the broker on {@code offLoop}, never on the I/O thread.
     */
    HttpChat(TranscriptWriter transcripts, RoomHistory history, LongPollRooms polls, Clock clock, String instance,
             int maxPending, @Nullable Cluster cluster, java.util.concurrent.Executor offLoop) {
        this.cluster = cluster;
        this.offLoop = offLoop;
        this.maxPending = maxPending;
        this.transcripts = transcripts;
        this.history = history;
        this.polls = polls;
        this.clock = clock;
        this.idPrefix = instance + "-";
        this.lanes = new ChatLanes<>("pulsebus-http-lane", LANES, Math.max(1, maxPending / LANES),
                GroupMessage::groupId, this::handleSaid);
    }

    static ChatRef room(String room) {
        return ChatRef.group(PLATFORM, room);
    }

    @Override
    public String platform() {
        return PLATFORM;
    }

    @Override
    public void start(Inbound inbound) {
        this.inbound = inbound;
        lanes.start(inbound);
    }

    /**
     * Refuses new says, lets each lane finish what it holds, and returns when they have, or after
     * {@link #STOP_WAIT_MILLIS} in all (a handler stuck on a database that is down must not hold up the
     * shutdown; what it does later is refused by the closed transcripts).
     */
    @Override
    public void stop() throws InterruptedException {
        if (!lanes.stop(java.time.Duration.ofMillis(STOP_WAIT_MILLIS))) {
            LOG.warn("An HTTP chat lane is still handling a message after {} ms; shutting down anyway",
                    STOP_WAIT_MILLIS);
        }
    }

    /**
     * Stores what {@code user} said in {@code room}; completes with its record once committed, or with
     * null when the room's lane is full (nothing stored). Fails at once while the store is failing.
     */
    CompletionStage<TranscriptRecord> say(String room, String user, String text) {
        return store(room, user, text, idPrefix + ids.incrementAndGet());
    }

    /**
     * {@link #say(String, String, String)} with the client's own id for the message ({@code "id"} in its body), so
     * that a client that got no answer can send it again: a second try of a say stored among its room's
     * {@value #REPLY_LOOKBACK} newest messages is answered with the first's record and is not handled again; one
     * still being stored waits for the first. Fails with {@link IdTaken} when the room's message of that id is
     * another user's or text.
     */
    CompletionStage<TranscriptRecord> say(String room, String user, String text, String clientId) {
        String id = CLIENT_ID + clientId;
        if (cluster != null) { // the room's holder looks for it, in the room's order (see handle)
            return store(room, user, text, id).thenApply(r -> sameSay(r, user, text));
        }
        String key = room + '\n' + id;
        CompletableFuture<TranscriptRecord> mine = new CompletableFuture<>();
        CompletableFuture<TranscriptRecord> first = keyed.size() < maxPending ? keyed.putIfAbsent(key, mine)
                : keyed.get(key);
        if (first != null) {
            return first.thenApply(r -> sameSay(r, user, text));
        }
        if (keyed.get(key) != mine) { // too many being looked up
            refused.increment();
            return CompletableFuture.completedFuture(null);
        }
        mine.whenComplete((r, failed) -> keyed.remove(key, mine));
        try {
            offLoop.execute(() -> { // the lookup queries the store: never on the I/O thread
                TranscriptRecord found = storedAlready(room, id, false);
                if (found != null) {
                    repeated.increment();
                }
                (found != null ? CompletableFuture.completedFuture(found) : store(room, user, text, id))
                        .whenComplete((r, failed) -> {
                            if (failed != null) {
                                mine.completeExceptionally(failed);
                            } else {
                                mine.complete(r);
                            }
                        });
            });
        } catch (RuntimeException e) { // shutting down
            mine.completeExceptionally(e);
        }
        return mine.thenApply(r -> sameSay(r, user, text));
    }

    /** The prefix of the message id of a say the client gave an id of its own. */
    static final String CLIENT_ID = "c:";
    /** Says with a client's id being looked up or stored on this single server, by room and id. */
    private final java.util.concurrent.ConcurrentHashMap<String, CompletableFuture<TranscriptRecord>> keyed =
            new java.util.concurrent.ConcurrentHashMap<>();

    /** {@code r}, when it is the say of {@code user} and {@code text} (or null: refused); else {@link IdTaken}. */
    private static @Nullable TranscriptRecord sameSay(@Nullable TranscriptRecord r, String user, String text) {
        if (r != null && (!r.userId().equals(user) || !text.equals(r.text()))) {
            throw new IdTaken("message id '" + r.messageId().substring(CLIENT_ID.length()) + "' is taken in room "
                    + r.chat().id() + " by another message (seq " + r.seq() + ")");
        }
        return r;
    }

    /** A say whose client id names another message of its room. */
    static final class IdTaken extends IllegalStateException {
        private static final long serialVersionUID = 1L;

        IdTaken(String message) {
            super(message);
        }
    }

    private CompletionStage<TranscriptRecord> store(String room, String user, String text, String id) {
        if (!lanes.hasRoom(room)) {
            refused.increment();
            return CompletableFuture.completedFuture(null);
        }
        if (!transcripts.healthy()) { // the store is failing: say so now rather than keep the client waiting
            return CompletableFuture.failedFuture(new IllegalStateException(
                    "the message store is down; try again later"));
        }
        Message message = Message.text(text);
        Cluster c = cluster;
        if (c != null) {
            return handOver(c, new TranscriptRecord(0, room(room), user, clock.instant().truncatedTo(ChronoUnit.MILLIS),
                    id, message, false), false);
        }
        // Memory and polls follow each commit in seq order (see recordDurably's then).
        return transcripts.recordDurably(room(room), user, clock.instant().truncatedTo(ChronoUnit.MILLIS), id, message,
                false, record -> {
                    received.increment();
                    history.committed(room, record);
                    polls.published(room, record);
                    GroupMessage event = new GroupMessage(id, record.time(), self, "", id, message, user, room, null);
                    if (!lanes.offer(event)) {
                        refused.increment();
                        LOG.warn("Message {} in room {} stored but not handled: the room's lane filled up", id, room);
                    }
                    return record;
                });
    }

    /**
     * A message for a room in a cluster (a say, or the bot's message sent away from the room's holder): handed, not
     * yet stored, to the instance holding the room, which stores it and tells this instance its record
     * ({@link #ROOM_STORED}); so one instance writes each room, and a room's messages commit in seq order (a poll
     * that saw one seq misses no lower one). Completes with null when refused (too many waiting, no broker); fails
     * when the broker does not take it (nothing stored); {@link Accepted} when the holder has not answered within
     * {@link #STORE_WAIT_MILLIS}. With {@code atConfirm} it completes, with {@code said} itself (seq 0), once the
     * broker has it, and the holder's answer is not waited for.
     */
    private CompletionStage<TranscriptRecord> handOver(Cluster c, TranscriptRecord said, boolean atConfirm) {
        String address = c.address();
        if (address.isEmpty() || storing.size() >= maxPending) {
            refused.increment();
            return CompletableFuture.completedFuture(null);
        }
        String id = said.messageId();
        byte[] body;
        try {
            body = Json.MAPPER.writeValueAsBytes(said.toJsonTree().put(TO, address));
        } catch (java.io.IOException e) {
            return CompletableFuture.failedFuture(e);
        }
        CompletableFuture<TranscriptRecord> stored = new CompletableFuture<>();
        CompletableFuture<TranscriptRecord> first = storing.putIfAbsent(id, stored);
        if (first != null) { // a client's second try of a say this instance still waits for: the same answer
            return first;
        }
        // off the I/O thread: a publish waits for the channel, and for the broker when it blocks publishers; the
        // event's id in the cluster (its dedupe mark) names the room, as a client's id is unique in its room only
        String key = PLATFORM + "/" + said.chat().id();
        CompletableFuture.supplyAsync(() -> c.dispatch(Cluster.ROOM_KIND, key, key + "/" + id, body), offLoop)
                .thenCompose(confirmed -> confirmed).whenComplete((v, failed) -> {
                    if (failed != null && storing.remove(id, stored)) {
                        stored.completeExceptionally(new IllegalStateException("the broker did not take it ("
                                + (failed instanceof java.util.concurrent.CompletionException x && x.getCause() != null
                                ? x.getCause() : failed).getMessage() + ")", failed));
                    } else if (failed == null && atConfirm && storing.remove(id, stored)) {
                        stored.complete(said);
                    }
                });
        CompletableFuture.delayedExecutor(STORE_WAIT_MILLIS, java.util.concurrent.TimeUnit.MILLISECONDS).execute(() -> {
            if (storing.remove(id, stored)) {
                stored.completeExceptionally(new Accepted(null, (said.outbound() ? "handed to the instance holding "
                        + "the room" : "handed to the bot") + ", but not stored within "
                        + STORE_WAIT_MILLIS + " ms: the instance holding the room will store and answer it; do not "
                        + "send it again"));
            }
        });
        return stored;
    }

    /** The answer of a room's holder to a say this instance handed over ({@link #ROOM_STORED}). */
    void storedByHolder(byte[] json) {
        JsonNode o;
        TranscriptRecord record;
        try {
            o = Json.MAPPER.readTree(json);
            if (o.has(FAILED)) {
                CompletableFuture<TranscriptRecord> waiting = storing.remove(o.path("message_id").asText());
                if (waiting != null) {
                    waiting.completeExceptionally(new IllegalStateException(o.path(FAILED).asText()));
                }
                return;
            }
            record = TranscriptRecord.fromJson(new String(json, StandardCharsets.UTF_8));
        } catch (java.io.IOException | IllegalArgumentException e) {
            LOG.warn("A room's holder answered a say with something unreadable: {}", e.toString());
            return;
        }
        CompletableFuture<TranscriptRecord> waiting = storing.remove(record.messageId());
        if (waiting == null) {
            return; // answered 202 already, or said on an instance that has restarted since
        }
        if (o.path(KEPT).asBoolean(false)) {
            waiting.completeExceptionally(new Accepted(record, "the message store is failing: kept as seq "
                    + record.seq() + ", stored once it answers"));
        } else {
            waiting.complete(record);
        }
    }

    /** The bot's replies: recorded in the room as user {@code bot}, then delivered to its waiting polls. */
    @Override
    public CompletionStage<String> send(OutboundMessage message) {
        String room = message.chat().id();
        if (!ChatRef.GROUP.equals(message.chat().detailType())) {
            return CompletableFuture.failedFuture(new IllegalArgumentException(
                    "the http platform has rooms (group chats) only, not " + message.chat()));
        }
        String replyTo = message.replyTo();
        // a reply names what it answers, so that a redelivery finds the replies made before it (see repliesTo)
        String id = (replyTo != null ? replyTo + REPLY_MARK + idPrefix : idPrefix) + ids.incrementAndGet();
        Handling handling = HANDLING.get();
        Cluster c = cluster;
        if (c != null && (handling == null || !handling.room.equals(room))) {
            // Not made while this instance handles one of the room's messages: the room's holder stores it, so
            // that one instance writes each room. Made while handling another event (on a partition's thread,
            // which waits for the sends it makes), it is done once the broker has it: the room may be held on
            // this very thread's partition.
            TranscriptRecord unstored = new TranscriptRecord(0, message.chat(), BOT_USER,
                    clock.instant().truncatedTo(ChronoUnit.MILLIS), id, message.message(), true);
            return handOver(c, unstored, ReplyWatch.watching()).thenApply(record -> {
                if (record == null) {
                    throw new IllegalStateException("not sent: " + (c.address().isEmpty()
                            ? "not connected to the broker" : "too many messages wait for their rooms' holders"));
                }
                return id;
            });
        }
        if (replyTo != null && handling != null && Redelivery.current()) {
            int nth = ++handling.made;
            List<String> before = repliesTo(room, replyTo);
            if (before.size() >= nth) { // made by the instance that handled it first, before it died
                return CompletableFuture.completedFuture(before.get(nth - 1));
            }
        }
        try {
            return transcripts.recordDurably(message.chat(), BOT_USER, clock.instant().truncatedTo(ChronoUnit.MILLIS), id,
                    message.message(), true, record -> {
                        if (c != null) {
                            committed(room, record, c);
                        } else {
                            history.committed(room, record);
                            polls.published(room, record);
                        }
                        return id;
                    });
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    /** Between the message a reply answers and the reply's own id, in the reply's message id. */
    static final String REPLY_MARK = "/re-";
    /** How many of a room's newest records a redelivery looks through for the replies made before. */
    private static final int REPLY_LOOKBACK = 500;
    /** The room whose message {@link #handle} handles on this thread, and the replies made so far. */
    private static final ThreadLocal<Handling> HANDLING = new ThreadLocal<>();

    private static final class Handling {
        final String room;
        int made;

        Handling(String room) {
            this.room = room;
        }
    }

    /**
     * The ids of the replies to {@code messageId} stored in {@code room}, oldest first. Asked only while a
     * redelivered message is handled (a cluster's holder died after its replies were committed, but before it
     * marked the message done), so that the rerun makes only the replies that were not stored: its n-th reply
     * is skipped when n were. One query of the room's newest {@value #REPLY_LOOKBACK} records.
     */
    private List<String> repliesTo(String room, String messageId) {
        String prefix = messageId + REPLY_MARK;
        List<String> found = new java.util.ArrayList<>(1);
        try {
            for (TranscriptRecord r : transcripts.history(room(room), REPLY_LOOKBACK, Long.MAX_VALUE)) {
                if (r.outbound() && r.messageId().startsWith(prefix)) {
                    found.add(r.messageId());
                }
            }
        } catch (Exception e) {
            LOG.warn("Could not look for earlier replies to redelivered message {} ({}); answering it again",
                    messageId, e.toString());
        }
        return found;
    }

    /** Tells the instance that took a say (at {@code to}) what became of it ({@link #ROOM_STORED}). */
    private void answerTaker(@Nullable Cluster c, String to, com.fasterxml.jackson.databind.node.ObjectNode answer) {
        if (c == null || to.isEmpty()) {
            return;
        }
        try {
            byte[] bytes = Json.MAPPER.writeValueAsBytes(answer);
            if (to.equals(c.address())) {
                storedByHolder(bytes); // said here
            } else {
                c.send(to, ROOM_STORED, bytes);
            }
        } catch (java.io.IOException | RuntimeException e) {
            LOG.warn("The instance that took say {} was not told what became of it: {}",
                    answer.path("message_id").asText(), e.toString());
        }
    }

    /** Message {@code messageId} of {@code room} when it is stored, among the room's newest records; else null. */
    private @Nullable TranscriptRecord storedAlready(String room, String messageId, boolean outbound) {
        try {
            for (TranscriptRecord r : transcripts.history(room(room), REPLY_LOOKBACK, Long.MAX_VALUE)) {
                if (r.outbound() == outbound && r.messageId().equals(messageId)) {
                    return r;
                }
            }
        } catch (Exception e) {
            LOG.warn("Could not look for redelivered message {} in room {} ({}); storing it", messageId, room,
                    e.toString());
        }
        return null;
    }

    /** A message stored here, in a cluster: into memory, to the polls waiting here and on the other instances. */
    private void committed(String room, TranscriptRecord record, Cluster c) {
        history.committed(room, record);
        polls.published(room, record);
        c.broadcast(ROOM_MESSAGE, record.toJson().getBytes(StandardCharsets.UTF_8));
    }

    /**
     * A say taken but not confirmed stored (202): kept for a store that is failing (with its record), or handed to
     * the room's holder that has not answered in time (without).
     */
    static final class Accepted extends IllegalStateException {
        private static final long serialVersionUID = 1L;
        final transient @Nullable TranscriptRecord record;

        Accepted(@Nullable TranscriptRecord record, String message) {
            super(message);
            this.record = record;
        }
    }

    /** The kind of a room holder's answer to the instance that took a say: the say's stored record. */
    static final String ROOM_STORED = "room-stored";
    /** How long a say handed to the room's holder waits for its answer before it is answered 202. */
    static final long STORE_WAIT_MILLIS = 10_000;
    /** In a handed-over say: where its holder answers. */
    private static final String TO = "to";
    /** In a holder's answer: the store is failing, the record is kept and stored later. */
    private static final String KEPT = "kept";
    /** In a holder's answer: the say was not stored, and why (it is not handled either). */
    private static final String FAILED = "failed";

    /** The broadcast kind of a message stored by another instance. */
    static final String ROOM_MESSAGE = "room";

    /** A message another instance stored ({@link #ROOM_MESSAGE}): into memory, and to the polls waiting here. */
    void storedElsewhere(byte[] json, Cluster c) {
        TranscriptRecord record = TranscriptRecord.fromJson(new String(json, StandardCharsets.UTF_8));
        String room = record.chat().id();
        history.committed(room, record);
        if (polls.waitingIn(room)) {
            c.wokeRemotely(1);
        }
        polls.published(room, record);
    }

    /** A room message handed over ({@link #handOver}): its record, not yet stored, and where its taker answers. */
    private record HandedOver(TranscriptRecord said, String to) {
        static HandedOver read(byte[] json) {
            try {
                JsonNode o = Json.MAPPER.readTree(json);
                return new HandedOver(TranscriptRecord.fromJson(new String(json, StandardCharsets.UTF_8)),
                        o.path(TO).asText(""));
            } catch (java.io.IOException e) {
                throw new IllegalArgumentException("a room message handed over is not JSON: " + e.getMessage(), e);
            }
        }
    }

    /**
     * A redelivered message of a room found handled before (its holder died after marking it done): not handled
     * again, but the instance that took it is answered again with its record, as the answer may have been lost
     * with the holder (its socket reset). One query of the room's newest records.
     */
    void answerAgain(byte[] json) {
        Cluster c = cluster;
        if (c == null) {
            return;
        }
        HandedOver h = HandedOver.read(json);
        if (h.to.isEmpty()) {
            return;
        }
        TranscriptRecord r = storedAlready(h.said.chat().id(), h.said.messageId(), h.said.outbound());
        if (r != null) {
            answerStored(c, h.to, r, false);
        }
    }

    /** Tells the instance that took a say (at {@code to}) that it is stored as {@code r}, and whether it was kept. */
    private void answerStored(Cluster c, String to, TranscriptRecord r, boolean kept) {
        answerTaker(c, to, r.toJsonTree().put(KEPT, kept));
    }

    /**
     * A message of a room this instance holds, handed over by the instance that took it (this one too), on the
     * partition's thread, in order: stored here (so one instance writes a room, in seq order), answered to that
     * instance, then, when it was said (not the bot's own), through the pipeline. A redelivered one found stored
     * (its holder died after storing it) is not stored again.
     */
    void handle(byte[] json) throws InterruptedException {
        Cluster c = cluster;
        HandedOver h = HandedOver.read(json);
        TranscriptRecord said = h.said;
        String room = said.chat().id();
        String to = h.to;
        boolean saidElsewhere = c != null && !to.equals(c.address());
        boolean kept = false;
        boolean bots = said.outbound(); // sent by the bot on another instance (or away from the handling thread)
        // a client's say with an id of its own may be a second try: answered as the first, not handled again
        boolean retry = !bots && said.messageId().startsWith(CLIENT_ID);
        TranscriptRecord r = Redelivery.current() || retry ? storedAlready(room, said.messageId(), bots) : null;
        boolean again = r != null && !Redelivery.current();
        if (again) {
            repeated.increment();
        }
        if (r == null) {
            RuntimeException failed;
            try {
                r = transcripts.recordDurably(said.chat(), said.userId(), said.time(), said.messageId(), said.message(),
                        bots, record -> {
                            if (!bots) {
                                received.increment();
                            }
                            if (c != null) {
                                if (saidElsewhere && polls.waitingIn(room)) {
                                    c.wokeRemotely(1); // a say on another instance wakes polls here
                                }
                                committed(room, record, c);
                            } else {
                                history.committed(room, record);
                                polls.published(room, record);
                            }
                            return record;
                        }).toCompletableFuture().get(STORE_WAIT_MILLIS, java.util.concurrent.TimeUnit.MILLISECONDS);
                failed = null;
            } catch (java.util.concurrent.ExecutionException e) {
                if (e.getCause() instanceof dev.pulsebus.transcript.NotYetStoredException notYet) {
                    r = notYet.record(); // the store is failing: kept, stored (and published) once it answers
                    kept = true;
                    failed = null;
                } else {
                    failed = new IllegalStateException("the message store failed: " + e.getCause(), e.getCause());
                }
            } catch (java.util.concurrent.TimeoutException e) {
                failed = new IllegalStateException("the message store did not answer within " + STORE_WAIT_MILLIS
                        + " ms (it may store it later, unanswered)", e);
            } catch (RuntimeException e) { // no seq (the database does not answer), the writer closed or full
                failed = new IllegalStateException("the message store failed: " + e.getMessage(), e);
            }
            if (failed != null) { // the instance that took it answers 503 now; the bot does not handle it
                answerTaker(c, to, Json.MAPPER.createObjectNode().put(FAILED, String.valueOf(failed.getMessage()))
                        .put("message_id", said.messageId()));
                throw new IllegalStateException("message " + said.messageId() + " in room " + room + " was not stored",
                        failed);
            }
        }
        if (r == null) { // stored, kept or thrown above: never
            throw new IllegalStateException("message " + said.messageId() + " in room " + room + " has no record");
        }
        if (c != null) {
            answerStored(c, to, r, kept);
        }
        if (bots || again) {
            return;
        }
        GroupMessage event = new GroupMessage(r.messageId(), r.time(), self, "", r.messageId(), r.message(), r.userId(),
                r.chat().id(), null);
        HANDLING.set(new Handling(room));
        InboundResult result;
        try {
            result = inbound.accept(event);
        } finally {
            HANDLING.remove();
        }
        if (result == InboundResult.COMMAND || result == InboundResult.PUBLISHED) {
            handled.increment();
        }
    }

    /** A said message, on its room's lane: through the pipeline. */
    private void handleSaid(GroupMessage m) {
        try {
            InboundResult result = inbound.accept(m);
            if (result == InboundResult.COMMAND || result == InboundResult.PUBLISHED
                    || result == InboundResult.ANSWERED) {
                handled.increment();
            }
        } catch (RuntimeException e) {
            LOG.error("Message {} in room {} failed in the pipeline", m.messageId(), m.groupId(), e);
        }
    }
}
