/**
 * The Telegram adapter: {@link dev.pulsebus.telegram.TelegramAdapter} speaks the Bot API for one or more
 * bots (tokens), receiving updates by long polling ({@code getUpdates}, the confirmed offset kept in the KV
 * store) or by webhook (updates POSTed to {@code /telegram/<bot id>/webhook} on the server's port), turns
 * them into the records of {@code dev.pulsebus.event} ({@code UpdateDecoder}) and sends the pipeline's
 * replies with {@code sendMessage}, {@code sendPhoto} and the file methods ({@code Sender}: long texts split, 429's
 * {@code retry_after} honoured per chat, 5xx retried).
 *
 * <p>Calls go through the JDK's {@link java.net.http.HttpClient} ({@code BotApi}) on virtual threads:
 * one poller per bot, one virtual thread per send; nothing runs on a Netty I/O thread but reading a
 * posted update's bytes.
 *
 * <p>It may import the JDK, Netty's buffers, Jackson, Micrometer, SLF4J, the core packages {@code event},
 * {@code pipeline}, {@code platform}, {@code kv}, {@code config} and {@code internal}, and
 * {@code dev.pulsebus.adapter}; never {@code dev.pulsebus.server}, {@code cluster}, {@code storage} or
 * another platform ({@code ArchitectureTest}).
 */
@org.jspecify.annotations.NullMarked
package dev.pulsebus.telegram;
