package dev.pulsebus.telegram;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.pulsebus.event.ChatRef;
import dev.pulsebus.event.Segment;
import dev.pulsebus.internal.Backoff;
import dev.pulsebus.internal.Json;
import dev.pulsebus.pipeline.OutboundMessage;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Sends outbound messages: text through {@code sendMessage} (split at {@value #MAX_TEXT} characters on a line
 * or word boundary), each image through {@code sendPhoto} (its {@code file_id} or URL), a {@code document},
 * {@code sticker}, {@code animation}, {@code audio}, {@code video}, {@code video_note} or {@code voice}
 * segment with a {@code file_id} (as the decoder makes them) through its own method ({@code sendDocument},
 * ...), in the order of the segments, the first of them
 * with {@code reply_parameters} when the message replies. One chat's messages go out in order, each chat on
 * its own virtual thread: a {@code 429} waits its {@code retry_after} for that chat only, a {@code 5xx} or a
 * network failure is retried after a {@link Backoff} delay, each at most {@value #RETRIES} times; any other
 * error ({@code 400}, {@code 403}) fails the stage at once with Telegram's description. The stage completes
 * with the {@code message_id} of the first message sent. Thread-safe.
 */
final class Sender {

    static final int MAX_TEXT = 4096;
    /** The send method of each file segment the decoder makes, by segment type (its parameter's name too). */
    static final Map<String, String> FILE_METHODS = Map.of("document", "sendDocument", "sticker", "sendSticker",
            "animation", "sendAnimation", "audio", "sendAudio", "video", "sendVideo", "video_note", "sendVideoNote",
            "voice", "sendVoice");
    static final int RETRIES = 5;

    /** Sleeps for a test's clock or the real one. */
    @FunctionalInterface
    interface Sleeper {
        void sleep(long millis) throws InterruptedException;
    }

    private final BotApi api;
    private final ExecutorService executor;
    private final Sleeper sleeper;
    /** Per chat: the last send queued, so the next one starts after it. Entries leave when their chat is idle. */
    private final Map<String, CompletableFuture<?>> tails = new HashMap<>();

    Sender(BotApi api, ExecutorService executor, Sleeper sleeper) {
        this.api = api;
        this.executor = executor;
        this.sleeper = sleeper;
    }

    CompletableFuture<String> send(String token, OutboundMessage message) {
        List<Call> calls;
        try {
            calls = calls(message);
        } catch (IllegalArgumentException e) {
            return CompletableFuture.failedFuture(e);
        }
        String chatKey = message.bot().userId() + "/" + message.chat().id();
        CompletableFuture<String> result = new CompletableFuture<>();
        synchronized (tails) {
            CompletableFuture<?> previous = tails.get(chatKey);
            CompletableFuture<?> start = previous == null ? CompletableFuture.completedFuture(null) : previous;
            CompletableFuture<?> tail = start.handleAsync((v, e) -> {
                deliver(token, calls, result);
                return null;
            }, executor);
            tails.put(chatKey, tail);
            tail.whenComplete((v, e) -> {
                synchronized (tails) {
                    tails.remove(chatKey, tail);
                }
            });
        }
        return result;
    }

    private void deliver(String token, List<Call> calls, CompletableFuture<String> result) {
        String first = null;
        try {
            for (Call c : calls) {
                JsonNode sent = call(token, c);
                if (first == null) {
                    first = sent.path("message_id").asText("");
                }
            }
            result.complete(first == null ? "" : first);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            result.completeExceptionally(e);
        } catch (IOException e) {
            result.completeExceptionally(new UncheckedIOException(e));
        } catch (RuntimeException e) {
            result.completeExceptionally(e);
        }
    }

    private JsonNode call(String token, Call c) throws IOException, InterruptedException {
        Backoff backoff = new Backoff(() -> ThreadLocalRandom.current().nextDouble());
        for (int attempt = 0; ; attempt++) {
            try {
                return api.call(token, c.method, c.params);
            } catch (TelegramApiException e) {
                if (attempt >= RETRIES || (e.errorCode() != 429 && e.errorCode() < 500)) {
                    throw e;
                }
                sleeper.sleep(e.errorCode() == 429 ? Math.max(1, e.retryAfterSeconds()) * 1000L : backoff.next());
            } catch (IOException e) {
                if (attempt >= RETRIES) {
                    throw e;
                }
                sleeper.sleep(backoff.next());
            }
        }
    }

    private record Call(String method, ObjectNode params) {
    }

    /** The calls that send {@code message}, in order. */
    private static List<Call> calls(OutboundMessage message) {
        String chatId = chatId(message.chat());
        String replyTo = message.replyTo();
        List<Call> calls = new ArrayList<>();
        StringBuilder text = new StringBuilder();
        for (Segment s : message.message().segments()) {
            switch (s) {
                case Segment.Reply r -> replyTo = r.messageId();
                case Segment.Image i -> {
                    texts(calls, chatId, text);
                    ObjectNode p = Json.MAPPER.createObjectNode().put("chat_id", chatId).put("photo", i.fileId());
                    calls.add(new Call("sendPhoto", p));
                }
                case Segment.Other o when FILE_METHODS.containsKey(o.type())
                        && o.data().get("file_id") instanceof String fileId && !fileId.isEmpty() -> {
                    texts(calls, chatId, text);
                    ObjectNode p = Json.MAPPER.createObjectNode().put("chat_id", chatId).put(o.type(), fileId);
                    calls.add(new Call(FILE_METHODS.get(o.type()), p));
                }
                default -> text.append(s.plainText());
            }
        }
        texts(calls, chatId, text);
        if (calls.isEmpty()) {
            throw new IllegalArgumentException("nothing to send: the message has no text and no image");
        }
        if (replyTo != null && !replyTo.isEmpty()) {
            ObjectNode reply = calls.get(0).params.putObject("reply_parameters");
            reply.put("message_id", Long.parseLong(replyTo));
            reply.put("allow_sending_without_reply", true);
        }
        return calls;
    }

    private static void texts(List<Call> calls, String chatId, StringBuilder text) {
        for (String part : split(text.toString())) {
            calls.add(new Call("sendMessage", Json.MAPPER.createObjectNode().put("chat_id", chatId).put("text", part)));
        }
        text.setLength(0);
    }

    /** The Bot API's {@code chat_id} of {@code chat}: the user, the group, a channel's chat (after its {@code /}). */
    static String chatId(ChatRef chat) {
        String id = chat.id();
        return chat.detailType().equals(ChatRef.CHANNEL) ? id.substring(id.lastIndexOf('/') + 1) : id;
    }

    /**
     * {@code text} in pieces of at most {@value #MAX_TEXT} characters, cut after the last line break in
     * the piece, else after its last space, else at the limit (never inside a surrogate pair); blank
     * pieces are left out.
     */
    static List<String> split(String text) {
        List<String> parts = new ArrayList<>();
        int from = 0;
        while (text.length() - from > MAX_TEXT) {
            int limit = from + MAX_TEXT;
            int cut = text.lastIndexOf('\n', limit - 1);
            if (cut <= from) {
                cut = text.lastIndexOf(' ', limit - 1);
            }
            int end;
            if (cut > from) {
                end = cut + 1;
            } else {
                end = Character.isHighSurrogate(text.charAt(limit - 1)) ? limit - 1 : limit;
            }
            add(parts, text.substring(from, end));
            from = end;
        }
        add(parts, text.substring(from));
        return parts;
    }

    private static void add(List<String> parts, String part) {
        if (!part.isBlank()) {
            parts.add(part.stripTrailing());
        }
    }
}
